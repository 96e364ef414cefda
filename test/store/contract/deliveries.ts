import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { EventBody } from '../../../src/model/events.ts'
import { newId } from '../../../src/model/ids.ts'
import type { Task } from '../../../src/model/task.ts'
import {
  A2A,
  CLAWPEDIA,
  type CurrentStore,
  completed,
  create,
  sleep,
  status,
  textArtifact,
} from './fixtures.ts'

const artifactOf = (taskId: string): EventBody => ({ kind: 'artifact', artifact: textArtifact(taskId) })

const TTL = 60_000
const HOUR = 3_600_000

/** The push outbox: claims, per-endpoint order, outcomes, retries, reads. */
export const deliveryCases = (store: CurrentStore): void => {
  const claim = (owner: string, limit = 100, ttlMs = TTL) => store().claimDeliveries({ owner, limit, ttlMs })
  /** A task notified to one Clawpedia endpoint of SUBMITTED (seq 2), WORKING (3) and COMPLETED (4). */
  const threeStatuses = async (): Promise<Task> => {
    const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
    await store().append({ taskId: task.id, events: [status('WORKING')] })
    await store().append({ taskId: task.id, events: [completed] })
    return task
  }

  describe('a write says whether it enqueued deliveries (outbox), so the push worker is woken only then', () => {
    const log = { kind: 'log', level: 'INFO', message: 'm' } as const

    it('creating: only with a target', async () => {
      assert.ok(!(await create(store())).outbox)
      assert.equal((await create(store(), { pushTargets: [CLAWPEDIA] })).outbox, true)
    })

    it('a status change: only on a task with a target, or one the append brings', async () => {
      const bare = (await create(store())).task
      assert.ok(!(await store().append({ taskId: bare.id, events: [status('WORKING')] })).outbox)
      const inline = await store().append({ taskId: bare.id, events: [completed], pushTargets: [CLAWPEDIA] })
      assert.equal(inline.outbox, true)
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
      assert.equal((await store().append({ taskId: task.id, events: [status('WORKING')] })).outbox, true)
      assert.ok(!(await store().append({ taskId: task.id, events: [log] })).outbox, 'a log notifies nobody')
    })

    it('an artifact: only to a target that hears artifacts (A2A), quiet or folded', async () => {
      const heard = (await create(store(), { pushTargets: [A2A] })).task
      const quiet = await store().append({ taskId: heard.id, events: [artifactOf(heard.id)] })
      assert.equal(quiet.outbox, true)
      const withStatus = await store().append({
        taskId: heard.id,
        events: [artifactOf(heard.id), status('WORKING')],
      })
      assert.equal(withStatus.outbox, true)
      const deaf = (await create(store(), { pushTargets: [CLAWPEDIA] })).task
      assert.ok(!(await store().append({ taskId: deaf.id, events: [artifactOf(deaf.id)] })).outbox)
    })
  })

  describe('claimDeliveries', () => {
    it('hands out only the earliest pending delivery of each (task, config)', async () => {
      const task = await threeStatuses()
      const first = await claim('pusher-1')
      assert.deepEqual(
        first.map((d) => d.seq),
        [2],
      )
      assert.equal(first[0]?.taskId, task.id)
      assert.deepEqual(await claim('pusher-2'), [], 'seq 3 waits while seq 2 is held')
      await store().settleDelivery('pusher-1', first[0]!.id, { result: 'delivered' })
      assert.deepEqual(
        (await claim('pusher-2')).map((d) => d.seq),
        [3],
      )
    })

    it('treats each endpoint of a task as its own queue', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA, A2A] })
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      const claimed = await claim('pusher-1')
      assert.deepEqual(
        claimed.map((d) => d.seq),
        [2, 2],
      )
      assert.equal(new Set(claimed.map((d) => d.configId)).size, 2)
    })

    it('respects the limit and hands out nothing twice', async () => {
      for (let i = 0; i < 3; i += 1) await create(store(), { pushTargets: [CLAWPEDIA] })
      const first = await claim('pusher-1', 2)
      assert.equal(first.length, 2)
      const second = await claim('pusher-2', 10)
      assert.equal(second.length, 1)
      assert.equal(new Set([...first, ...second].map((d) => d.id)).size, 3)
    })

    it('lets another pusher take a delivery whose claim expired', async () => {
      await create(store(), { pushTargets: [CLAWPEDIA] })
      const [held] = await claim('pusher-1', 10, 20)
      assert.ok(held)
      await sleep(60)
      const [taken] = await claim('pusher-2')
      assert.equal(taken?.id, held.id)
      await store().settleDelivery('pusher-1', held.id, { result: 'delivered' })
      assert.equal((await store().getDelivery(held.id))?.state, 'pending', 'the lost claim cannot settle')
      await store().settleDelivery('pusher-2', held.id, { result: 'delivered' })
      assert.equal((await store().getDelivery(held.id))?.state, 'delivered')
    })
  })

  describe('settleDelivery', () => {
    it('records delivered, only from the claim holder', async () => {
      await create(store(), { pushTargets: [CLAWPEDIA] })
      const [delivery] = await claim('pusher-1')
      assert.ok(delivery)
      await store().settleDelivery('pusher-2', delivery.id, { result: 'delivered' })
      const untouched = await store().getDelivery(delivery.id)
      assert.equal(untouched?.state, 'pending')
      assert.equal(untouched?.attempts, 0)
      await store().settleDelivery('pusher-1', delivery.id, { result: 'delivered' })
      const settled = await store().getDelivery(delivery.id)
      assert.equal(settled?.state, 'delivered')
      assert.equal(settled?.attempts, 1)
      assert.ok(settled?.deliveredAt)
      assert.equal(settled?.lastError, undefined)
      // Settling again does nothing: the claim ended with the first outcome.
      await store().settleDelivery('pusher-1', delivery.id, { result: 'dead', error: 'late' })
      assert.equal((await store().getDelivery(delivery.id))?.state, 'delivered')
    })

    it('reschedules a retry at retryAt, still blocking later deliveries of the endpoint', async () => {
      await threeStatuses()
      const [first] = await claim('pusher-1')
      assert.ok(first)
      const retryAt = new Date(Date.now() + HOUR).toISOString()
      await store().settleDelivery('pusher-1', first.id, { result: 'retry', error: 'HTTP 503', retryAt })
      const retrying = await store().getDelivery(first.id)
      assert.equal(retrying?.state, 'pending')
      assert.equal(retrying?.attempts, 1)
      assert.equal(retrying?.lastError, 'HTTP 503')
      assert.equal(retrying?.nextAttemptAt, retryAt)
      assert.deepEqual(await claim('pusher-2'), [], 'not due, and seq 3 must not overtake it')
    })

    it('makes a retry due at retryAt claimable again', async () => {
      await create(store(), { pushTargets: [CLAWPEDIA] })
      const [first] = await claim('pusher-1')
      assert.ok(first)
      const retryAt = new Date(Date.now() - 1_000).toISOString()
      await store().settleDelivery('pusher-1', first.id, { result: 'retry', error: 'timeout', retryAt })
      const [again] = await claim('pusher-2')
      assert.equal(again?.id, first.id)
      assert.equal(again?.attempts, 1)
    })

    it('marks a delivery dead, which unblocks the next one; retryDelivery puts it back', async () => {
      await threeStatuses()
      const [first] = await claim('pusher-1')
      assert.ok(first)
      await store().settleDelivery('pusher-1', first.id, { result: 'dead', error: 'HTTP 410' })
      const dead = await store().getDelivery(first.id)
      assert.equal(dead?.state, 'dead')
      assert.equal(dead?.lastError, 'HTTP 410')
      assert.equal(dead?.attempts, 1)
      const [next] = await claim('pusher-1')
      assert.equal(next?.seq, 3)

      await new Promise((resolve) => setTimeout(resolve, 5))
      const retriedAt = new Date().toISOString()
      const retried = await store().retryDelivery(first.id)
      assert.equal(retried?.id, first.id)
      assert.ok(retried!.createdAt >= retriedAt, 'its age restarts, so maxAgeMs does not kill it at once')
      assert.equal(retried?.state, 'pending')
      assert.equal(retried?.attempts, 0)
      assert.equal(retried?.lastError, undefined)
      assert.equal(await store().retryDelivery(first.id), undefined, 'only a dead delivery is retried')
      assert.equal(await store().retryDelivery(newId()), undefined)
      assert.deepEqual(await store().countDeliveries(), { pending: 3, delivered: 0, dead: 0 })
    })
  })

  describe('reading the outbox', () => {
    it('lists newest first, filtered by state and task, gets one, counts by state', async () => {
      const task = await threeStatuses()
      const other = await threeStatuses()
      const all = await store().listDeliveries({ taskId: task.id, limit: 10 })
      assert.deepEqual(
        all.map((d) => d.seq),
        [4, 3, 2],
      )
      assert.ok(all.every((d) => d.taskId === task.id))
      assert.deepEqual(
        (await store().listDeliveries({ taskId: task.id, limit: 2 })).map((d) => d.seq),
        [4, 3],
      )
      const [head] = (await claim('pusher')).filter((d) => d.taskId === task.id)
      assert.ok(head)
      await store().settleDelivery('pusher', head.id, { result: 'delivered' })
      const delivered = await store().listDeliveries({ state: 'delivered', limit: 10 })
      assert.deepEqual(
        delivered.map((d) => d.id),
        [head.id],
      )
      assert.equal((await store().listDeliveries({ state: 'pending', limit: 10 })).length, 5)
      assert.equal(
        (await store().listDeliveries({ state: 'pending', taskId: other.id, limit: 10 })).length,
        3,
      )
      assert.deepEqual(await store().getDelivery(head.id), delivered[0])
      assert.equal(await store().getDelivery(newId()), undefined)
      assert.deepEqual(await store().countDeliveries(), { pending: 5, delivered: 1, dead: 0 })
    })
  })
}
