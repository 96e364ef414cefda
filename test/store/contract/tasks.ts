import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId } from '../../../src/model/ids.ts'
import type { Message } from '../../../src/model/parts.ts'
import {
  A2A,
  assertSameTask,
  CLAWPEDIA,
  type CurrentStore,
  create,
  FOREIGN_SCOPES,
  header,
  range,
  SCOPE,
  status,
} from './fixtures.ts'

/** createTask, getTask, readEvents. */
export const taskCases = (store: CurrentStore): void => {
  describe('createTask', () => {
    it('writes the opening events [input seq 1, SUBMITTED seq 2] and the task as their fold', async () => {
      const message: Message = { messageId: newId(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] }
      const result = await create(store(), { input: { q: 'x' }, text: 'hi', message })
      assert.equal(result.created, true)
      assert.equal(result.leased, false)
      assert.deepEqual(
        result.events.map((e) => [e.seq, e.kind]),
        [
          [1, 'input'],
          [2, 'status'],
        ],
      )
      const [input, submitted] = result.events
      assert.ok(input?.kind === 'input' && submitted?.kind === 'status')
      assert.deepEqual(input.input, { q: 'x' })
      assert.equal(input.text, 'hi')
      assert.deepEqual(input.message, message)
      assert.equal(submitted.state, 'SUBMITTED')
      const { task } = result
      assert.equal(task.state, 'SUBMITTED')
      assert.equal(task.version, 2)
      assert.deepEqual(task.input, { q: 'x' })
      assert.equal(task.text, 'hi')
      assert.deepEqual(task.history, [message])
      assertSameTask(await store().getTask(SCOPE, task.id), task)
      assert.deepEqual(await store().readEvents(task.id, 0), result.events)
    })

    it('grants the lease in the same transaction when asked', async () => {
      const leased = await create(store(), { lease: { owner: 'runner-1', ttlMs: 60_000 } })
      assert.equal(leased.leased, true)
      assert.deepEqual(await store().claimTasks({ owner: 'runner-2', limit: 10, ttlMs: 60_000 }), [])
      assert.deepEqual(await store().renewLeases('runner-1', [leased.task.id], 60_000), [leased.task.id])
      const free = await create(store())
      const claimed = await store().claimTasks({ owner: 'runner-2', limit: 10, ttlMs: 60_000 })
      assert.deepEqual(
        claimed.map((c) => c.task.id),
        [free.task.id],
      )
    })

    it('creates push configs for its targets and a delivery of the opening status to each', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA, A2A] })
      const configs = await store().listPushConfigs(SCOPE, task.id)
      assert.deepEqual(
        configs.map((c) => c.target).sort((a, b) => a.kind.localeCompare(b.kind)),
        [A2A, CLAWPEDIA],
      )
      for (const config of configs) assert.equal(config.taskId, task.id)
      const deliveries = await store().listDeliveries({ taskId: task.id, limit: 10 })
      const [submitted] = await store().readEvents(task.id, 1, 1)
      assert.ok(submitted?.kind === 'status' && submitted.state === 'SUBMITTED')
      assert.equal(deliveries.length, 2)
      assert.deepEqual(new Set(deliveries.map((d) => d.configId)), new Set(configs.map((c) => c.id)))
      for (const delivery of deliveries) {
        assert.equal(delivery.seq, 2)
        assert.equal(delivery.state, 'pending')
        assert.equal(delivery.attempts, 0)
        assert.deepEqual(delivery.event, submitted)
        assertSameTask(delivery.task, task)
        assert.deepEqual(delivery.target, configs.find((c) => c.id === delivery.configId)?.target)
      }
      assert.deepEqual(await store().countDeliveries(), { pending: 2, delivered: 0, dead: 0 })
    })

    it("keeps the header's A2A extensions and trace context through appends, snapshot refreshes and claims", async () => {
      const extensions = ['https://example.org/ext/a/v1', 'urn:example:b']
      const traceContext = {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tracestate: 'vendor=x',
      }
      const { task } = await create(store(), { header: { extensions, traceContext } })
      assert.deepEqual(task.extensions, extensions)
      assert.deepEqual(task.traceContext, traceContext)
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      // Past any backend's snapshot interval, so the task is read back from a refreshed snapshot.
      for (const batch of range(5)) {
        const events = range(20).map((i) => ({
          kind: 'log' as const,
          level: 'INFO' as const,
          message: `${batch}.${i}`,
        }))
        await store().append({ taskId: task.id, events, requestRun: batch === 4 })
      }
      const read = await store().getTask(SCOPE, task.id)
      assert.equal(read?.version, 103)
      assert.deepEqual(read?.extensions, extensions)
      assert.deepEqual(read?.traceContext, traceContext)
      const [claimed] = await store().claimTasks({ owner: 'runner-x', limit: 10, ttlMs: 60_000 })
      assert.equal(claimed?.task.id, task.id)
      assert.deepEqual(claimed?.task.extensions, extensions)
      assert.deepEqual(claimed?.task.traceContext, traceContext)
      const plain = await store().getTask(SCOPE, (await create(store())).task.id)
      assert.equal(plain?.extensions, undefined, 'absent when none')
      assert.equal(plain?.traceContext, undefined, 'absent when none')
    })
  })

  describe('getTask', () => {
    it('sees a task only in its own scope', async () => {
      const { task } = await create(store())
      assertSameTask(await store().getTask(SCOPE, task.id), task)
      for (const scope of FOREIGN_SCOPES) assert.equal(await store().getTask(scope, task.id), undefined)
      assert.equal(await store().getTask(SCOPE, newId()), undefined)
    })
  })

  describe('ping', () => {
    it('resolves while the store is open, rejects once it is closed', async () => {
      // Readiness rests on this: a ping that always resolved would report a dead store as ready.
      assert.equal(await store().ping(), undefined)
      await store().close()
      await assert.rejects(store().ping())
    })
  })

  describe('readEvents', () => {
    it('returns events after a cursor, ascending, at most limit', async () => {
      const { task } = await create(store(), { header: header() })
      await store().append({
        taskId: task.id,
        events: [
          status('WORKING'),
          { kind: 'log', level: 'INFO', message: 'a' },
          { kind: 'log', level: 'INFO', message: 'b' },
        ],
      })
      const seqs = async (after: number, limit?: number) =>
        (await store().readEvents(task.id, after, limit)).map((e) => e.seq)
      assert.deepEqual(await seqs(0), [1, 2, 3, 4, 5])
      assert.deepEqual(await seqs(2), [3, 4, 5])
      assert.deepEqual(await seqs(2, 2), [3, 4])
      // Cursors and page ends inside what one create or one append wrote.
      assert.deepEqual(await seqs(0, 1), [1])
      assert.deepEqual(await seqs(1, 1), [2])
      assert.deepEqual(await seqs(3, 1), [4])
      assert.deepEqual(await seqs(1, 3), [2, 3, 4])
      await store().append({
        taskId: task.id,
        events: [
          { kind: 'log', level: 'INFO', message: 'c' },
          { kind: 'log', level: 'INFO', message: 'd' },
        ],
      })
      assert.deepEqual(await seqs(4, 2), [5, 6])
      assert.deepEqual(await seqs(4), [5, 6, 7])
      assert.deepEqual(await seqs(7), [])
      assert.deepEqual(await store().readEvents(newId(), 0), [])
    })
  })

  describe('countOpenTasks', () => {
    it('prepares its index on demand, any number of times', async () => {
      await create(store())
      await store().prepareIndex('open-tasks')
      await store().prepareIndex('open-tasks')
      assert.equal(await store().countOpenTasks(SCOPE), 1)
    })

    it("counts the scope's tasks that are not terminal, and nobody else's", async () => {
      assert.equal(await store().countOpenTasks(SCOPE), 0)
      const tasks = await Promise.all(range(4).map(() => create(store())))
      await create(store(), { header: { ...FOREIGN_SCOPES[0] } })
      await create(store(), { header: { ...FOREIGN_SCOPES[1] } })
      assert.equal(await store().countOpenTasks(SCOPE), 4)
      const [first, second, third] = tasks.map((t) => t.task.id)
      await store().append({
        taskId: first!,
        events: [status('WORKING'), status('INPUT_REQUIRED', { prompt: '?' })],
      })
      await store().append({
        taskId: second!,
        events: [status('WORKING'), status('COMPLETED', { output: {} })],
      })
      await store().append({ taskId: third!, events: [status('CANCELLED')] })
      assert.equal(
        await store().countOpenTasks(SCOPE),
        2,
        'INPUT_REQUIRED stays open; completed and cancelled do not',
      )
      for (const scope of FOREIGN_SCOPES) assert.equal(await store().countOpenTasks(scope), 1)
    })
  })
}
