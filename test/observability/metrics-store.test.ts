/**
 * The observed store on its own: lease takeovers, open tasks per agent and state, commit counts
 * and task lines, read back through the instance's own registry.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { SwitchboardMetrics } from '../../src/observability/metrics.ts'
import { tracerOf } from '../../src/observability/tracing.ts'
import { OpenTaskTally, observedStore, withTaskAgents } from '../../src/server/metrics-store.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { completed, create, status } from '../store/contract/fixtures.ts'
import { parseExposition, sampleSum, sampleValue } from './prometheus-text.ts'

describe('the observed store', () => {
  const inner = createMemoryStore()
  after(() => inner.close())
  const lines: { obj: Record<string, unknown>; msg?: string }[] = []
  const logger = {
    info: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    warn: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    error: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
  }
  const tally = new OpenTaskTally({ trackWaiting: true })
  const metrics = new SwitchboardMetrics({
    store: inner,
    openTasks: () => tally.counts(),
    openStreams: () => new Map(),
  })
  const store = observedStore(inner, { metrics, tally, logger, tracer: tracerOf() })
  const scrape = async () => parseExposition((await metrics.render()).body)

  it('counts a claim of a task whose lease expired unreleased as a takeover, and only that', async () => {
    await inner.init()
    const taken = (await create(store, { header: { agent: 'alpha' } })).task
    await store.claimTasks({ owner: 'runner-1', limit: 10, ttlMs: 60_000 })
    assert.equal(sampleValue(await scrape(), 'switchboard_lease_takeovers_total'), 0)
    assert.equal(await store.expireLeases('runner-1'), 1)
    const claimed = await store.claimTasks({ owner: 'runner-2', limit: 10, ttlMs: 60_000 })
    assert.deepEqual(
      claimed.map((c) => [c.task.id, c.interrupted]),
      [[taken.id, true]],
    )
    assert.equal(sampleValue(await scrape(), 'switchboard_lease_takeovers_total'), 1)
  })

  it('tallies open tasks per agent as waiting (needing a run) or running (leased here), and drops them when they finish', async () => {
    const running = (await create(store, { header: { agent: 'beta' } })).task
    const waiting = (await create(store, { header: { agent: 'beta' } })).task
    let exposition = await scrape()
    assert.equal(sampleValue(exposition, 'switchboard_tasks_open', { agent: 'beta', state: 'waiting' }), 2)
    const claimed = await store.claimTasks({ owner: 'runner-1', limit: 1, ttlMs: 60_000, agents: ['beta'] })
    assert.deepEqual(
      claimed.map((c) => c.task.id),
      [running.id],
    )
    await store.append({ taskId: running.id, events: [status('WORKING')], leaseOwner: 'runner-1' })
    exposition = await scrape()
    assert.equal(sampleValue(exposition, 'switchboard_tasks_open', { agent: 'beta', state: 'waiting' }), 1)
    assert.equal(sampleValue(exposition, 'switchboard_tasks_open', { agent: 'beta', state: 'running' }), 1)
    await store.append({
      taskId: running.id,
      events: [completed],
      leaseOwner: 'runner-1',
      releaseLease: true,
    })
    await store.append({ taskId: waiting.id, events: [status('WORKING'), completed] })
    exposition = await scrape()
    assert.equal(sampleSum(exposition, 'switchboard_tasks_open', { agent: 'beta' }), 0)
    assert.equal(
      sampleValue(exposition, 'switchboard_tasks_finished_total', { agent: 'beta', state: 'COMPLETED' }),
      2,
    )
    assert.equal(
      sampleValue(exposition, 'switchboard_task_time_to_first_event_seconds_count', { agent: 'beta' }),
      2,
    )
    // Appends of 1, 1 and 2 events.
    assert.equal(sampleValue(exposition, 'switchboard_store_commit_events_count'), 3)
    assert.equal(sampleValue(exposition, 'switchboard_store_commit_events_sum'), 4)
    const finished = lines.filter((line) => line.msg === 'task finished' && line.obj.agent === 'beta')
    assert.deepEqual(new Set(finished.map((line) => line.obj.taskId)), new Set([waiting.id, running.id]))
  })

  it('adds the agent to engine lines about a task it knows, and leaves other lines alone', async () => {
    const task = (
      await create(store, { header: { agent: 'gamma' }, lease: { owner: 'runner-1', ttlMs: 60_000 } })
    ).task
    const engineLogger = withTaskAgents(logger, tally)
    engineLogger.error({ taskId: task.id }, 'task run failed unexpectedly')
    engineLogger.warn({ expired: 2 }, 'recovering tasks')
    assert.deepEqual(lines.at(-2), {
      obj: { taskId: task.id, agent: 'gamma' },
      msg: 'task run failed unexpectedly',
    })
    assert.deepEqual(lines.at(-1), { obj: { expired: 2 }, msg: 'recovering tasks' })
  })
})
