/**
 * Retention: the sweeper deletes finished tasks past the age in batches, keeps the rest, stops on
 * stop(); `--retention` reads a duration from flag, environment or config file.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { retentionFlags } from '../../src/cli/serve-flags/retention.ts'
import { silentLogger } from '../../src/engine/logger.ts'
import { RetentionSweeper } from '../../src/engine/retention.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { completed, create, SCOPE, status } from '../store/contract/fixtures.ts'

const store = createMemoryStore()
afterEach(async () => {
  for (const task of (await store.listTasks(SCOPE, { pageSize: 100 })).tasks)
    if (task.state === 'WORKING') await store.append({ taskId: task.id, events: [completed] })
  await store.deleteExpiredTasks({ finishedBefore: new Date(Date.now() + 1e6).toISOString(), limit: 1e6 })
})

/** A completed task, once the clock has moved past its final status (so maxAgeMs 0 expires it). */
const finished = async () => {
  const { task } = await create(store)
  const done = await store.append({ taskId: task.id, events: [status('WORKING'), completed] })
  while (Date.now() <= Date.parse(done.task.statusAt)) await new Promise((resolve) => setImmediate(resolve))
  return task
}

describe('retention', () => {
  it('a sweep deletes every expired finished task, batch by batch, and keeps open ones', async () => {
    for (let i = 0; i < 5; i += 1) await finished()
    const { task: open } = await create(store)
    await store.append({ taskId: open.id, events: [status('WORKING')] })
    // maxAgeMs 0: everything finished before now has expired.
    const sweeper = new RetentionSweeper({ store, logger: silentLogger, maxAgeMs: 0, batchSize: 2 })
    assert.equal(await sweeper.sweep(), 5)
    const left = (await store.listTasks(SCOPE, { pageSize: 100 })).tasks
    assert.deepEqual(
      left.map((t) => t.id),
      [open.id],
    )
  })

  it('keeps tasks younger than maxAgeMs', async () => {
    const task = await finished()
    const sweeper = new RetentionSweeper({ store, logger: silentLogger, maxAgeMs: 3_600_000 })
    assert.equal(await sweeper.sweep(), 0)
    assert.equal((await store.getTask(SCOPE, task.id))?.state, 'COMPLETED')
  })

  it('start() sweeps in the background; stop() waits for the pass in flight and ends the loop', async () => {
    const task = await finished()
    const logged: unknown[] = []
    const logger = { ...silentLogger, info: (obj: object) => logged.push(obj) }
    const sweeper = new RetentionSweeper({ store, logger, maxAgeMs: 0, intervalMs: 10 })
    sweeper.start()
    while (logged.length === 0) await new Promise((resolve) => setImmediate(resolve))
    await sweeper.stop()
    assert.deepEqual(logged, [{ deleted: 1 }])
    assert.equal(await store.getTask(SCOPE, task.id), undefined)
  })

  it('sweepKeys() forgets idempotency keys past the window, batch by batch, and keeps their tasks', async () => {
    const keyed = (key: string, fingerprint = 'f-1') => ({ key, fingerprint, windowMs: 3_600_000 })
    const tasks = await Promise.all(['a', 'b', 'c'].map((key) => create(store, { idempotency: keyed(key) })))
    // Without maxAgeMs no task goes; a window of 0 lets every key recorded before now go.
    const sweeper = new RetentionSweeper({
      store,
      logger: silentLogger,
      idempotencyWindowMs: 0,
      batchSize: 2,
    })
    assert.equal(await sweeper.sweep(), 0)
    assert.equal(await sweeper.sweepKeys(), 3)
    for (const { task } of tasks) assert.equal((await store.getTask(SCOPE, task.id))?.id, task.id)
    // A forgotten key dedupes nothing: another request under it is new, not a conflict.
    assert.equal((await create(store, { idempotency: keyed('a', 'f-2') })).created, true)
    const keep = new RetentionSweeper({ store, logger: silentLogger, idempotencyWindowMs: 3_600_000 })
    assert.equal(await keep.sweepKeys(), 0)
  })

  it('start() sweeps keys in the background even when finished tasks are kept', async () => {
    let window: number | undefined
    const spy = new Proxy(store, {
      get(target, key) {
        if (key === 'deleteExpiredIdempotencyKeys')
          return async (request: { olderThanMs: number; limit: number }) => {
            const n = await target.deleteExpiredIdempotencyKeys(request)
            window = request.olderThanMs
            return n
          }
        const value = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const sweeper = new RetentionSweeper({ store: spy, logger: silentLogger, idempotencyWindowMs: 5_000 })
    sweeper.start()
    // The sweeper's timer does not hold the process open: spin until its first pass reaches the keys.
    while (window === undefined) await new Promise((resolve) => setImmediate(resolve))
    await sweeper.stop()
    assert.equal(window, 5_000)
  })

  it('serve: --retention over SWITCHBOARD_RETENTION over retention in the file; off by default', () => {
    const resolve = (flags: object, env: object, file: object) =>
      retentionFlags.resolve({ flags: flags as never, env: env as never, file: file as never })
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.deepEqual(resolve({ retention: '30d' }, { SWITCHBOARD_RETENTION: '1h' }, {}), {
      retention: { maxAgeMs: 30 * 86_400_000 },
    })
    assert.deepEqual(resolve({}, { SWITCHBOARD_RETENTION: '12h' }, { retention: '1s' }), {
      retention: { maxAgeMs: 12 * 3_600_000 },
    })
    assert.deepEqual(resolve({}, {}, { retention: '45m' }), { retention: { maxAgeMs: 45 * 60_000 } })
    assert.throws(() => resolve({ retention: '30' }, {}, {}), /--retention must be a duration/)
    assert.throws(() => resolve({}, {}, { retention: 0 }), /retention in the config file must be a duration/)
  })
})
