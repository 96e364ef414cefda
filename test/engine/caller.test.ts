import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { frozenCaller } from '../../src/engine/caller.ts'
import type { CallerIdentity } from '../../src/model/caller.ts'
import { oldGrowth, srcModule } from '../helpers/old-growth.ts'

describe('frozenCaller', () => {
  const caller: CallerIdentity = {
    principal: 'alice',
    tenant: 'acme',
    scopes: ['tasks:read:tenant'],
    method: 'jwt',
    claims: { roles: ['staff'], profile: { team: 'ops' } },
  }

  it('is an equal, frozen copy whose scopes and claims a handler cannot change for the next run', () => {
    const copy = frozenCaller(caller)
    assert.deepEqual(copy, caller)
    assert.ok(Object.isFrozen(copy))
    assert.ok(Object.isFrozen(copy.scopes))
    assert.throws(() => (copy.scopes as string[]).push('admin'))
    // Nested claims are the handler's own: changing them leaves the recorded caller as it was.
    ;(copy.claims!.roles as string[]).push('admin')
    ;(copy.claims!.profile as { team: string }).team = 'sales'
    assert.deepEqual(caller.claims, { roles: ['staff'], profile: { team: 'ops' } })
    assert.deepEqual(frozenCaller(caller), {
      ...caller,
      claims: { roles: ['staff'], profile: { team: 'ops' } },
    })
  })

  it('has no claims when the caller has none', () => {
    const anonymous = frozenCaller({ principal: 'anonymous', tenant: 'default', scopes: [], method: 'none' })
    assert.equal('claims' in anonymous, false)
  })

  it('keeps nothing that holds the copy past the young collections', async () => {
    // A run's context holds the copy; 40,000 of them, each beside about 1 KB of its own.
    const runs = (copy: string) =>
      oldGrowth({
        imports: `import { frozenCaller } from ${srcModule('engine/caller.ts')}`,
        body: `
          let held
          for (let i = 0; i < 40_000; i++) {
            const caller = { principal: 'p' + (i % 7), tenant: 't', scopes: [], method: 'none' }
            held = { caller: ${copy}, bytes: new Array(128).fill(i) }
            if (i % 500 === 499) gc({ type: 'minor' })
          }
        `,
      })
    // Node 20's V8 kept every holder of a frozen copy made by spreading until a full collection.
    const grown = (await runs('frozenCaller(caller)')) - (await runs('caller'))
    assert.ok(grown < 1e6, `the old generation grew by ${(grown / 1e6).toFixed(1)} MB more than with no copy`)
  })
})
