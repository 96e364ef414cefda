import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { IdempotencyKey } from '../../../src/store/contract.ts'
import {
  assertSameTask,
  type CurrentStore,
  completed,
  create,
  FOREIGN_SCOPES,
  range,
  rejectsWith,
  SCOPE,
  status,
} from './fixtures.ts'

const HOUR = 3_600_000

const keyed = (key: string, fingerprint = 'request-1', windowMs = HOUR): IdempotencyKey => ({
  key,
  fingerprint,
  windowMs,
})

/** createTask with an idempotency key, and deleteExpiredIdempotencyKeys. */
export const idempotencyCases = (store: CurrentStore): void => {
  const count = async (scope = SCOPE) => (await store().listTasks(scope, { pageSize: 1 })).totalSize

  describe('idempotency keys', () => {
    it('the same key and fingerprint again creates nothing and returns the task as it is now', async () => {
      const first = await create(store(), { idempotency: keyed('key-1'), input: { n: 1 } })
      assert.equal(first.created, true)
      const worked = await store().append({ taskId: first.task.id, events: [status('WORKING')] })
      const again = await create(store(), { idempotency: keyed('key-1'), input: { n: 1 } })
      assert.equal(again.created, false)
      assert.equal(again.leased, false)
      assert.deepEqual(again.events, [])
      assertSameTask(again.task, worked.task)
      assert.equal(await count(), 1)
    })

    it('the same key with another fingerprint is IDEMPOTENCY_CONFLICT, writes nothing, leaves the task as it was', async () => {
      const first = await create(store(), { idempotency: keyed('key-1', 'request-1'), input: { n: 1 } })
      await rejectsWith(
        create(store(), { idempotency: keyed('key-1', 'request-2'), input: { n: 2 } }),
        'IDEMPOTENCY_CONFLICT',
      )
      assert.equal(await count(), 1)
      assertSameTask(await store().getTask(SCOPE, first.task.id), first.task)
      // The key still belongs to the first request.
      const again = await create(store(), { idempotency: keyed('key-1', 'request-1') })
      assert.equal(again.task.id, first.task.id)
    })

    it('a key is per tenant and owner: another scope using it gets a task of its own, never the first', async () => {
      const first = await create(store(), { idempotency: keyed('key-1') })
      for (const scope of FOREIGN_SCOPES) {
        // The same request, and another one: each answered exactly as if the key were new.
        const same = await create(store(), { idempotency: keyed('key-1'), header: scope })
        assert.equal(same.created, true)
        assert.notEqual(same.task.id, first.task.id)
        const other = await create(store(), { idempotency: keyed('key-2', 'request-2'), header: scope })
        assert.equal(other.created, true)
      }
      // key-2 in the first scope is still unused, whatever the other scopes sent under it.
      assert.equal((await create(store(), { idempotency: keyed('key-2') })).created, true)
      assert.equal(await count(), 2)
    })

    it('creates one task when many requests race with the same key; racing other fingerprints are refused', async () => {
      const results = await Promise.allSettled(
        range(12).map((i) => create(store(), { idempotency: keyed('race-key', `request-${i % 2}`) })),
      )
      const created = results.filter((r) => r.status === 'fulfilled' && r.value.created)
      assert.equal(created.length, 1)
      const winner = created[0]!.status === 'fulfilled' ? created[0]!.value : undefined
      const winning = `request-${results.indexOf(created[0]!) % 2}`
      results.forEach((result, i) => {
        if (`request-${i % 2}` === winning) {
          assert.equal(result.status, 'fulfilled')
          assert.equal(result.status === 'fulfilled' && result.value.task.id, winner?.task.id)
        } else {
          assert.equal(result.status, 'rejected')
          assert.equal(result.status === 'rejected' && result.reason.code, 'IDEMPOTENCY_CONFLICT')
        }
      })
      assert.equal(await count(), 1)
    })

    it('a key older than the window is taken over by a new task, whatever its fingerprint', async () => {
      const first = await create(store(), { idempotency: keyed('key-1', 'request-1') })
      // A window of 0: every key recorded before now has expired.
      const second = await create(store(), { idempotency: keyed('key-1', 'request-2', 0) })
      assert.equal(second.created, true)
      assert.notEqual(second.task.id, first.task.id)
      // The key is the new task's now, with the new request's fingerprint.
      assert.equal(
        (await create(store(), { idempotency: keyed('key-1', 'request-2') })).task.id,
        second.task.id,
      )
      await rejectsWith(create(store(), { idempotency: keyed('key-1', 'request-1') }), 'IDEMPOTENCY_CONFLICT')
      assert.equal((await store().getTask(SCOPE, first.task.id))?.id, first.task.id, 'the old task stays')
    })

    it('a key whose task retention deleted dedupes nothing: the next request is new', async () => {
      const first = await create(store(), { idempotency: keyed('key-1') })
      await store().append({ taskId: first.task.id, events: [status('WORKING'), completed] })
      const future = new Date(Date.now() + HOUR).toISOString()
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: future, limit: 10 }), 1)
      const again = await create(store(), { idempotency: keyed('key-1', 'request-2') })
      assert.equal(again.created, true)
      assert.notEqual(again.task.id, first.task.id)
      assert.equal((await create(store(), { idempotency: keyed('key-1', 'request-2') })).created, false)
    })

    it('deleteExpiredIdempotencyKeys deletes keys past the window in batches, keeping keys within it and every task', async () => {
      const tasks = await Promise.all(
        range(3).map((i) => create(store(), { idempotency: keyed(`key-${i}`) })),
      )
      assert.equal(await store().deleteExpiredIdempotencyKeys({ olderThanMs: HOUR, limit: 10 }), 0)
      assert.equal((await create(store(), { idempotency: keyed('key-0') })).created, false)
      // A window of 0: every key recorded before now is past it.
      assert.equal(await store().deleteExpiredIdempotencyKeys({ olderThanMs: 0, limit: 2 }), 2)
      assert.equal(await store().deleteExpiredIdempotencyKeys({ olderThanMs: 0, limit: 2 }), 1)
      assert.equal(await store().deleteExpiredIdempotencyKeys({ olderThanMs: 0, limit: 2 }), 0)
      for (const { task } of tasks) assert.equal((await store().getTask(SCOPE, task.id))?.id, task.id)
      // A forgotten key names no task: the same key with another request is new, not a conflict.
      const again = await create(store(), { idempotency: keyed('key-0', 'request-2') })
      assert.equal(again.created, true)
      assert.equal(await count(), 4)
    })
  })
}
