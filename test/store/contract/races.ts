import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isSwitchboardError } from '../../../src/model/errors.ts'
import type { Delivery } from '../../../src/model/push.ts'
import {
  A2A,
  assertSameTask,
  CLAWPEDIA,
  type CurrentStore,
  cancelled,
  completed,
  create,
  createTask,
  inBatches,
  range,
  SCOPE,
  status,
  workingTask,
} from './fixtures.ts'

/**
 * The concurrency rules of the contract, exercised with real concurrency: on PostgreSQL these
 * calls run on separate connections at the same time; on SQLite they interleave at awaits.
 */
export const raceCases = (store: CurrentStore): void => {
  describe('races', () => {
    it('cancel against complete: exactly one terminal state per task, the loser gets TASK_TERMINAL', async () => {
      const tasks = await inBatches(range(200), 20, () => workingTask(store()))
      const outcomes = await Promise.all(
        tasks.map(async (task) => {
          const [cancel, complete] = await Promise.allSettled([
            store().append({ taskId: task.id, events: [cancelled] }),
            store().append({ taskId: task.id, events: [completed] }),
          ])
          return { task, cancel, complete }
        }),
      )
      for (const { task, cancel, complete } of outcomes) {
        const won = [cancel, complete].filter((r) => r.status === 'fulfilled')
        const lost = [cancel, complete].filter((r) => r.status === 'rejected')
        assert.equal(won.length, 1, `task ${task.id}: exactly one append wins`)
        const loss = lost[0]
        assert.ok(loss?.status === 'rejected' && isSwitchboardError(loss.reason))
        assert.equal(loss.reason.code, 'TASK_TERMINAL')
        const winner = won[0]?.status === 'fulfilled' ? won[0].value.task : undefined
        const stored = await store().getTask(SCOPE, task.id)
        assertSameTask(stored, winner)
        const events = await store().readEvents(task.id, 0)
        const terminal = events.filter(
          (e) => e.kind === 'status' && ['COMPLETED', 'CANCELLED'].includes(e.state),
        )
        assert.equal(terminal.length, 1)
        assert.equal(events.length, 4)
        assert.ok(terminal[0]?.kind === 'status' && terminal[0].state === stored?.state)
      }
    })

    it('concurrent claimers never receive the same task', async () => {
      const tasks = await inBatches(range(100), 20, () => createTask(store()))
      const [a, b] = await Promise.all([
        store().claimTasks({ owner: 'claimer-a', limit: 100, ttlMs: 60_000 }),
        store().claimTasks({ owner: 'claimer-b', limit: 100, ttlMs: 60_000 }),
      ])
      const claimed = [...(a ?? []), ...(b ?? [])].map((c) => c.task.id)
      assert.equal(new Set(claimed).size, claimed.length, 'no task handed out twice')
      assert.deepEqual(new Set(claimed), new Set(tasks.map((t) => t.id)))
    })

    it('many small concurrent claims hand out every task exactly once', async () => {
      const tasks = await inBatches(range(100), 20, () => createTask(store()))
      const seen: string[] = []
      for (let round = 0; round < 50; round += 1) {
        const batches = await Promise.all(
          range(4).map((i) => store().claimTasks({ owner: `claimer-${i}`, limit: 7, ttlMs: 60_000 })),
        )
        const got = batches.flat().map((c) => c.task.id)
        if (got.length === 0) break
        seen.push(...got)
      }
      assert.equal(new Set(seen).size, seen.length, 'no task handed out twice')
      assert.equal(seen.length, tasks.length)
    })

    it('concurrent delivery claimers keep per-endpoint order: seq N+1 only after N is settled', async () => {
      // 15 tasks × 2 endpoints × 3 status changes (SUBMITTED, WORKING, COMPLETED) = 90 deliveries.
      const tasks = await inBatches(range(15), 15, async () => {
        const { task } = await create(store(), { pushTargets: [CLAWPEDIA, A2A] })
        await store().append({ taskId: task.id, events: [status('WORKING')] })
        await store().append({ taskId: task.id, events: [completed] })
        return task
      })
      const nextSeq = new Map<string, number>()
      const key = (d: Delivery) => `${d.taskId}/${d.configId}`
      let delivered = 0
      for (let round = 0; round < 20 && delivered < 90; round += 1) {
        const batches = await Promise.all(
          range(3).map((i) => store().claimDeliveries({ owner: `pusher-${i}`, limit: 25, ttlMs: 60_000 })),
        )
        const keys = batches.flat().map(key)
        assert.equal(new Set(keys).size, keys.length, 'one delivery per (task, config) at a time')
        for (const [i, batch] of batches.entries()) {
          for (const delivery of batch) {
            assert.equal(delivery.seq, nextSeq.get(key(delivery)) ?? 2, 'deliveries leave in seq order')
            nextSeq.set(key(delivery), delivery.seq + 1)
            await store().settleDelivery(`pusher-${i}`, delivery.id, { result: 'delivered' })
            delivered += 1
          }
        }
      }
      assert.equal(delivered, tasks.length * 2 * 3)
      assert.deepEqual(await store().countDeliveries(), { pending: 0, delivered: 90, dead: 0 })
    })
  })
}
