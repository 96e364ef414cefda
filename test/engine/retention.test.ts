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
