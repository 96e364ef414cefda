import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId } from '../../../src/model/ids.ts'
import type { PushConfig, PushTarget } from '../../../src/model/push.ts'
import { nowIso } from '../../../src/model/time.ts'
import {
  A2A,
  CLAWPEDIA,
  type CurrentStore,
  create,
  createTask,
  FOREIGN_SCOPES,
  rejectsWith,
  SCOPE,
  status,
} from './fixtures.ts'

const config = (taskId: string, target: PushTarget = A2A): PushConfig => ({
  id: newId(),
  taskId,
  createdAt: nowIso(),
  target,
})

/** putPushConfig, getPushConfig, listPushConfigs, deletePushConfig. */
export const pushConfigCases = (store: CurrentStore): void => {
  describe('push configs', () => {
    it('creates, reads, lists and replaces configs of a task in its scope', async () => {
      const task = await createTask(store())
      const first = config(task.id)
      assert.deepEqual(await store().putPushConfig(SCOPE, first), first)
      assert.deepEqual(await store().getPushConfig(SCOPE, task.id, first.id), first)
      const second = config(task.id, CLAWPEDIA)
      await store().putPushConfig(SCOPE, second)
      assert.deepEqual(
        (await store().listPushConfigs(SCOPE, task.id)).map((c) => c.id).sort(),
        [first.id, second.id].sort(),
      )
      const replaced = { ...first, target: { ...A2A, url: 'https://hooks.example.com/new' } }
      await store().putPushConfig(SCOPE, replaced)
      assert.deepEqual(await store().getPushConfig(SCOPE, task.id, first.id), replaced)
      assert.equal((await store().listPushConfigs(SCOPE, task.id)).length, 2)
      assert.equal(await store().getPushConfig(SCOPE, task.id, newId()), undefined)
    })

    it('keeps configs invisible and untouchable outside the scope', async () => {
      const task = await createTask(store())
      const mine = config(task.id)
      await store().putPushConfig(SCOPE, mine)
      for (const scope of FOREIGN_SCOPES) {
        await rejectsWith(store().putPushConfig(scope, config(task.id)), 'TASK_NOT_FOUND')
        assert.equal(await store().getPushConfig(scope, task.id, mine.id), undefined)
        assert.deepEqual(await store().listPushConfigs(scope, task.id), [])
        assert.equal(await store().deletePushConfig(scope, task.id, mine.id), false)
      }
      await rejectsWith(store().putPushConfig(SCOPE, config(newId())), 'TASK_NOT_FOUND')
      assert.deepEqual(await store().listPushConfigs(SCOPE, task.id), [mine])
    })

    it('deletes a config once and drops its pending deliveries, keeping settled ones', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
      const [only] = await store().listPushConfigs(SCOPE, task.id)
      assert.ok(only)
      const [opening] = await store().claimDeliveries({ owner: 'pusher', limit: 10, ttlMs: 60_000 })
      assert.ok(opening)
      await store().settleDelivery('pusher', opening.id, { result: 'delivered' })
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      assert.deepEqual(await store().countDeliveries(), { pending: 1, delivered: 1, dead: 0 })

      assert.equal(await store().deletePushConfig(SCOPE, task.id, only.id), true)
      assert.equal(await store().getPushConfig(SCOPE, task.id, only.id), undefined)
      assert.equal(await store().deletePushConfig(SCOPE, task.id, only.id), false)
      assert.deepEqual(await store().countDeliveries(), { pending: 0, delivered: 1, dead: 0 })
      assert.deepEqual(
        (await store().listDeliveries({ taskId: task.id, limit: 10 })).map((d) => d.id),
        [opening.id],
      )
      // No config, no new deliveries.
      await store().append({ taskId: task.id, events: [status('CANCELLED')] })
      assert.equal((await store().countDeliveries()).pending, 0)
    })

    it('notifies a config added later of the status changes after it', async () => {
      const task = await createTask(store())
      const later = config(task.id)
      await store().putPushConfig(SCOPE, later)
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      const deliveries = await store().listDeliveries({ taskId: task.id, limit: 10 })
      assert.deepEqual(
        deliveries.map((d) => [d.configId, d.seq]),
        [[later.id, 3]],
      )
      assert.deepEqual(deliveries[0]?.target, later.target)
    })

    it('inserts the push configs an append brings in its transaction, notified of its events; none if refused', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
      await store().append({ taskId: task.id, events: [status('WORKING'), status('INPUT_REQUIRED')] })
      const answered = await store().append({
        taskId: task.id,
        scope: SCOPE,
        events: [{ kind: 'input', input: {} }, status('WORKING')],
        requestRun: true,
        pushTargets: [A2A],
      })
      const configs = await store().listPushConfigs(SCOPE, task.id)
      assert.deepEqual(
        configs.map((c) => c.target),
        [CLAWPEDIA, A2A],
      )
      const added = configs[1]!
      assert.equal(added.createdAt, answered.events[0]!.at)
      const deliveries = await store().listDeliveries({ taskId: task.id, limit: 20 })
      assert.deepEqual(
        deliveries.filter((d) => d.configId === added.id).map((d) => [d.seq, d.task.state]),
        [[answered.task.version, 'WORKING']],
      )
      // A refused append (a terminal task) leaves no config behind.
      await store().append({ taskId: task.id, events: [status('CANCELLED')] })
      await rejectsWith(
        store().append({ taskId: task.id, events: [status('WORKING')], pushTargets: [A2A] }),
        'TASK_TERMINAL',
      )
      assert.equal((await store().listPushConfigs(SCOPE, task.id)).length, 2)
    })
  })
}
