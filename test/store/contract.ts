import { afterEach, beforeEach, describe } from 'node:test'
import type { Store } from '../../src/store/contract.ts'
import { apiKeyCases } from './contract/api-keys.ts'
import { appendCases } from './contract/append.ts'
import { chunkCases } from './contract/chunks.ts'
import { deliveryCases } from './contract/deliveries.ts'
import { idempotencyCases } from './contract/idempotency.ts'
import { leaseCases } from './contract/leases.ts'
import { listCases } from './contract/list.ts'
import { pushConfigCases } from './contract/push-configs.ts'
import { raceCases } from './contract/races.ts'
import { retentionCases } from './contract/retention.ts'
import { taskCases } from './contract/tasks.ts'
import { tenantScopeCases } from './contract/tenant-scope.ts'

/**
 * The one store contract suite: every backend runs it unchanged. Each case gets a fresh,
 * initialised store from `makeStore`; afterwards the suite closes it and calls `teardown` (drop a
 * schema, delete a file). Backend-only cases live beside the backend's own test file.
 */
export function storeContract(
  name: string,
  makeStore: () => Promise<Store>,
  teardown?: (store: Store) => Promise<void>,
): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store | undefined
    const current = (): Store => {
      if (!store) throw new Error('no store: the case runs outside beforeEach/afterEach')
      return store
    }
    beforeEach(async () => {
      store = await makeStore()
      await store.init()
    })
    afterEach(async () => {
      const done = store
      store = undefined
      if (!done) return
      await done.close()
      await teardown?.(done)
    })

    taskCases(current)
    idempotencyCases(current)
    appendCases(current)
    chunkCases(current)
    raceCases(current)
    listCases(current)
    leaseCases(current)
    pushConfigCases(current)
    deliveryCases(current)
    tenantScopeCases(current)
    apiKeyCases(current)
    retentionCases(current)
  })
}
