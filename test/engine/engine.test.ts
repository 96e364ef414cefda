import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import { isSwitchboardError } from '../../src/model/errors.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { isTerminal, type TaskState } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope, type Task } from '../../src/model/task.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { instantAgent } from '../helpers/agents.ts'
import { eventually } from '../helpers/server.ts'

const settled = (state: TaskState) => isTerminal(state) || state === 'INPUT_REQUIRED'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs of each handler, to prove replay re-runs and cancellation stops them. */
const calls = { replay: 0, stubborn: 0, stubbornLogsAfterCancel: 0 }
let release: (() => void) | undefined
/** Set by the stubborn handler: resolves with its signal's state when the signal fires 'abort'. */
let abortSeen: Promise<{ aborted: boolean; reason: unknown }> | undefined
/** Set by the stubborn handler: resolves once it has returned (its last log attempt is behind it). */
let stubbornReturned: Promise<void> | undefined
/** Each start of a serial task waits on its own gate, so the test decides when each one finishes. */
const serialGates: (() => void)[] = []

const replayAgent = defineAgent({
  id: '11111111-2222-4333-8444-555555555501',
  slug: 'replay',
  name: 'Replay',
  description: 'Logs, publishes, asks twice, for replay tests.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    calls.replay += 1
    await ctx.log('info', 'before the first question')
    await ctx.artifact({ type: 'text', text: 'draft' })
    const first = await ctx.ask('first?')
    await ctx.log('info', `got ${JSON.stringify(first.input)}`)
    const second = await ctx.ask('second?', { schema: { type: 'object', required: ['n'] } })
    await ctx.artifact({ type: 'json', value: second.input })
    return { first: first.input, second: second.input }
  },
})

const stubbornAgent = defineAgent({
  id: '11111111-2222-4333-8444-555555555502',
  slug: 'stubborn',
  name: 'Stubborn',
  description: 'Ignores its abort signal and keeps logging, for cancellation tests.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    calls.stubborn += 1
    const { signal } = ctx
    abortSeen = new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve({ aborted: signal.aborted, reason: signal.reason })),
    )
    let returned = () => {}
    stubbornReturned = new Promise((resolve) => {
      returned = resolve
    })
    await ctx.log('info', 'working')
    await new Promise<void>((resolve) => {
      release = resolve
    })
    for (let i = 0; i < 3; i++) {
      try {
        await ctx.log('info', `still going ${i}`)
        calls.stubbornLogsAfterCancel += 1
      } catch {
        // refused: the task is terminal
      }
    }
    returned()
    return { done: true }
  },
})

const serialAgent = defineAgent({
  id: '11111111-2222-4333-8444-555555555503',
  slug: 'serial',
  name: 'Serial',
  description: 'One at a time (concurrency 1), for admission tests.',
  concurrency: 1,
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    await new Promise<void>((resolve) => serialGates.push(resolve))
    ctx.signal.throwIfAborted()
    return {}
  },
})

let store: SqliteStore
let engine: Engine
const bus = new LocalBus()

before(async () => {
  store = createMemoryStore()
  engine = new Engine({
    store,
    bus,
    agents: new AgentRegistry([instantAgent, replayAgent, stubbornAgent, serialAgent]),
    singleProcess: true,
    pollMs: 50,
  })
  await engine.start()
})
after(async () => {
  await engine.stop()
  await store.close()
})

const eventsOf = (taskId: string): Promise<TaskEvent[]> => store.readEvents(taskId, 0)
const terminalStatuses = (events: TaskEvent[]) =>
  events.filter((e) => e.kind === 'status' && isTerminal(e.state))

describe('terminal finality under a cancel/complete race', () => {
  it('exactly one terminal state per task, 300 times over', async () => {
    const outcomes = { COMPLETED: 0, CANCELLED: 0 }
    for (let round = 0; round < 300; round++) {
      const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'instant', input: { round } })
      // Vary the delay so the cancel lands before, during and after the run.
      const pause = round % 4
      if (pause === 1) for (let i = 0; i < round % 13; i++) await null
      if (pause === 2) await new Promise((resolve) => setImmediate(resolve))
      if (pause === 3) await sleep(round % 3)
      const cancel = engine.cancel(scope, task.id).then(
        (t) => ({ ok: true as const, state: t.state }),
        (e: { code: string }) => ({ ok: false as const, code: e.code }),
      )
      const result = await cancel
      const done = await engine.waitFor(scope, task.id, isTerminal)
      const terminal = terminalStatuses(await eventsOf(task.id))
      assert.equal(terminal.length, 1, `task ${round} has ${terminal.length} terminal statuses`)
      if (result.ok) {
        assert.equal(done.state, 'CANCELLED')
      } else {
        assert.equal(result.code, 'TASK_NOT_CANCELABLE')
        assert.equal(done.state, 'COMPLETED')
      }
      outcomes[done.state as 'COMPLETED' | 'CANCELLED'] += 1
    }
    assert.ok(
      outcomes.CANCELLED > 0 && outcomes.COMPLETED > 0,
      `both sides must win sometimes: ${JSON.stringify(outcomes)}`,
    )
  })
})

describe('cancellation is real', () => {
  it('aborts the signal, and a handler that ignores it can write nothing after CANCELLED', {
    timeout: 20_000,
  }, async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'stubborn', input: {} })
    await engine.waitFor(scope, task.id, (s) => s === 'WORKING')
    // Wrapped: an async check returning the promise itself would wait for the abort before the cancel.
    const { signal } = await eventually(
      async () => (abortSeen ? { signal: abortSeen } : undefined),
      5000,
      'the handler to start',
    )
    const cancelled = await engine.cancel(scope, task.id)
    assert.equal(cancelled.state, 'CANCELLED')
    const seen = await signal
    assert.equal(seen.aborted, true, "the handler's signal fired 'abort' and reads aborted")
    assert.ok(seen.reason !== undefined, 'the abort carries a reason')
    // The handler ignored it; let it go on and wait until it has tried all its logs.
    await eventually(async () => release ?? undefined, 5000, 'the handler to wait for release')
    release?.()
    await stubbornReturned
    assert.equal(calls.stubbornLogsAfterCancel, 0)
    const events = await eventsOf(task.id)
    assert.equal(events.at(-1)?.kind, 'status')
    assert.equal((events.at(-1) as { state: string }).state, 'CANCELLED')
    await eventually(
      async () => (engine.runningCount === 0 ? true : undefined),
      5000,
      'the run to be over even though the handler ignored its signal',
    )
  })
})

describe('multi-turn replay', () => {
  it('re-runs the handler per answer, replays recorded calls, and emits nothing twice', async () => {
    calls.replay = 0
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'replay', input: {} })
    let current = await engine.waitFor(scope, task.id, settled)
    assert.equal(current.state, 'INPUT_REQUIRED')
    assert.equal(current.prompt, 'first?')
    await engine.provideInput({ scope, taskId: task.id, input: { colour: 'blue' } })
    current = await engine.waitFor(scope, task.id, (s) => settled(s) && s !== 'WORKING')
    assert.equal(current.prompt, 'second?')
    await assert.rejects(
      engine.provideInput({ scope, taskId: task.id, input: { m: 1 } }),
      (e: { code: string }) => e.code === 'INPUT_SCHEMA_VIOLATION',
    )
    await engine.provideInput({ scope, taskId: task.id, input: { n: 2 } })
    current = await engine.waitFor(scope, task.id, isTerminal)
    assert.equal(current.state, 'COMPLETED')
    assert.deepEqual(current.output, { first: { colour: 'blue' }, second: { n: 2 } })
    assert.equal(calls.replay, 3)
    const events = await eventsOf(task.id)
    const kinds = events.map((e) => (e.kind === 'status' ? e.state : e.kind))
    assert.deepEqual(kinds, [
      'input',
      'SUBMITTED',
      'WORKING',
      'log',
      'artifact',
      'INPUT_REQUIRED',
      'input',
      'WORKING',
      'log',
      'INPUT_REQUIRED',
      'input',
      'WORKING',
      'artifact',
      'COMPLETED',
    ])
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
    )
  })

  it('hands the caller of provideInput a task of its own, not the one bus listeners share', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'replay', input: {} })
    await engine.waitFor(scope, task.id, settled)
    const published: (Task | undefined)[] = []
    const unsubscribe = bus.subscribe(task.id, (note) => published.push(note.task))
    try {
      const answered = await engine.provideInput({ scope, taskId: task.id, input: { colour: 'red' } })
      const shared = published.find((t) => t?.version === answered.version)
      assert.ok(shared, 'the append was published with its task')
      // A stream folds later events into the task it is handed (A2A SendStreamingMessage on a follow-up).
      answered.state = 'COMPLETED'
      answered.artifacts.push({
        id: 'x',
        type: 'text',
        text: 'folded by a stream',
      } as Task['artifacts'][number])
      assert.equal(shared.state, 'WORKING')
      assert.equal(shared.artifacts.length, 1)
    } finally {
      unsubscribe()
    }
    await engine.cancel(scope, task.id).catch(() => {})
  })

  it('refuses input unless the task waits for it', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'instant', input: {} })
    await engine.waitFor(scope, task.id, isTerminal)
    await assert.rejects(
      engine.provideInput({ scope, taskId: task.id, input: {} }),
      (e: { code: string }) => e.code === 'TASK_TERMINAL',
    )
  })
})

describe('admission', () => {
  it('honours per-agent concurrency: excess tasks wait in SUBMITTED, then run', async () => {
    const tasks = await Promise.all(
      [1, 2, 3].map(() => engine.submit({ caller: ANONYMOUS, agent: 'serial', input: {} })),
    )
    // Each run waits on its gate until the test opens it: nothing finishes behind the test's back.
    const statesOf = () =>
      Promise.all(tasks.map(({ task }) => engine.getTask(scope, task.id).then((t) => t.state)))
    for (let done = 0; done < 3; done += 1) {
      const expected = [
        ...Array(done).fill('COMPLETED'),
        ...Array(2 - done).fill('SUBMITTED'),
        'WORKING',
      ].sort()
      await eventually(
        async () => {
          const states = (await statesOf()).sort()
          assert.ok(serialGates.length <= 1, `${serialGates.length} serial runs at once`)
          assert.ok(states.filter((s) => s === 'WORKING').length <= 1, `more than one WORKING: ${states}`)
          return serialGates.length === 1 && String(states) === String(expected) ? true : undefined
        },
        5000,
        `run ${done + 1} to start while the rest wait in SUBMITTED`,
      )
      serialGates.shift()?.()
    }
    for (const { task } of tasks)
      assert.equal((await engine.waitFor(scope, task.id, isTerminal)).state, 'COMPLETED')
    assert.equal(serialGates.length, 0)
  })

  it('idempotency: the same key and request twice is one task; another request under it is refused', async () => {
    const submit = (agent: string, input: Record<string, unknown>, caller = ANONYMOUS) =>
      engine.submit({ caller, agent, input, idempotency: { key: 'k-1', request: { input } } })
    const first = await submit('instant', { a: 1, b: 2 })
    // Key order is not part of the request: its fingerprint is over the JCS form.
    const second = await submit('instant', { b: 2, a: 1 })
    assert.equal(first.created, true)
    assert.equal(second.created, false)
    assert.equal(second.task.id, first.task.id)
    const refused = (error: unknown) => isSwitchboardError(error) && error.code === 'IDEMPOTENCY_CONFLICT'
    const count = async () => (await store.listTasks(scope, { pageSize: 1 })).totalSize
    const before = await count()
    await assert.rejects(submit('instant', { a: 2 }), refused)
    // The agent is part of the request: the same body to another agent is another request.
    await assert.rejects(submit('replay', { a: 1, b: 2 }), refused)
    assert.equal(await count(), before, 'a refused request creates nothing')
    // Another caller's key is its own: a task of its own, whatever the request.
    const other = await submit('instant', { a: 2 }, { ...ANONYMOUS, principal: 'someone-else' })
    assert.equal(other.created, true)
    assert.notEqual(other.task.id, first.task.id)
  })
})
