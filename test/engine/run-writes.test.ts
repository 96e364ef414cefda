import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { LIMITS } from '../../src/engine/limits.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import { isTerminal } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope } from '../../src/model/task.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'

/** What the handlers saw, for the assertions. */
const seen = { fileStoredWhenResolved: false }

const burstAgent = defineAgent({
  id: '11111111-2222-4333-8444-555555555601',
  slug: 'burst',
  name: 'Burst',
  description: 'Publishes n artifacts, awaiting each, then completes.',
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    const n = Number((input as { n?: number }).n ?? 10)
    for (let i = 0; i < n; i++) await ctx.artifact({ type: 'text', name: `a${i}`, text: `chunk ${i}` })
    await ctx.log('info', 'done')
    return { n }
  },
})

const filerAgent = defineAgent({
  id: '11111111-2222-4333-8444-555555555602',
  slug: 'filer',
  name: 'Filer',
  description: 'Publishes a file artifact and checks that it is stored once the call resolves.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    // Past the inline size: the bytes are stored beside the artifact, not in it.
    const report = 'the whole report '.repeat(LIMITS.inlineFileBytes / 8)
    const artifact = await ctx.artifact({
      type: 'file',
      filename: 'report.txt',
      mediaType: 'text/plain',
      bytes: report,
    })
    seen.fileStoredWhenResolved = (await store.getArtifact(scope, artifact.id))?.bytes?.toString() === report
    return {}
  },
})

type AppendRequest = Parameters<Store['append']>[0]

/** The store as the engine sees it, with every append passed through `intercept`. */
const interceptAppend = (
  target: SqliteStore,
  intercept: (request: AppendRequest, append: Store['append']) => ReturnType<Store['append']>,
): SqliteStore =>
  new Proxy(target, {
    get(store, key) {
      if (key === 'append') return (request: AppendRequest) => intercept(request, (r) => store.append(r))
      const value = Reflect.get(store, key, store)
      return typeof value === 'function' ? value.bind(store) : value
    },
  })

let store: SqliteStore
let appends: { taskId: string; kinds: string[]; releaseLease: boolean }[] = []
let engine: Engine

before(async () => {
  store = createMemoryStore()
  const recording = interceptAppend(store, (request, append) => {
    appends.push({
      taskId: request.taskId,
      kinds: request.events.map((e) => (e.kind === 'status' ? e.state : e.kind)),
      releaseLease: request.releaseLease === true,
    })
    return append(request)
  })
  engine = new Engine({
    store: recording,
    bus: new LocalBus(),
    agents: new AgentRegistry([burstAgent, filerAgent]),
    singleProcess: true,
    replicaId: 'replica-test',
  })
  await engine.start()
})
after(async () => {
  await engine.stop()
  await store.close()
})

describe("a run's writes", () => {
  it('commits what a handler emits, awaited one by one, with its outcome and the lease release in one write', async () => {
    appends = []
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'burst', input: { n: 10 } })
    const done = await engine.waitFor(scope, task.id, isTerminal, { known: task })
    assert.equal(done.state, 'COMPLETED')
    assert.deepEqual(
      done.artifacts.map((a) => a.name),
      Array.from({ length: 10 }, (_, i) => `a${i}`),
    )
    const ofTask = appends.filter((a) => a.taskId === task.id)
    assert.deepEqual(ofTask, [
      {
        taskId: task.id,
        kinds: ['WORKING', ...Array.from({ length: 10 }, () => 'artifact'), 'log', 'COMPLETED'],
        releaseLease: true,
      },
    ])
    const events = await store.readEvents(task.id, 0)
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      'one sequence, in call order',
    )
    assert.deepEqual(
      await store.renewLeases('replica-test', [task.id], 60_000),
      [],
      'the lease went with the outcome',
    )
    assert.equal(engine.runningCount, 0)
  })

  it('answers a file artifact only once its bytes are stored', async () => {
    seen.fileStoredWhenResolved = false
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'filer', input: {} })
    assert.equal((await engine.waitFor(scope, task.id, isTerminal)).state, 'COMPLETED')
    assert.equal(seen.fileStoredWhenResolved, true)
  })

  it('makes 500 artifacts of one handler wait for the store past the queue limit, losing none', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'burst', input: { n: 500 } })
    const done = await engine.waitFor(scope, task.id, isTerminal)
    assert.equal(done.state, 'COMPLETED')
    assert.equal(done.artifacts.length, 500)
    assert.deepEqual(
      done.artifacts.map((a) => a.name),
      Array.from({ length: 500 }, (_, i) => `a${i}`),
    )
  })
})

describe('waitFor', () => {
  it('resolves with the terminal task when the state waited for never comes', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'burst', input: { n: 1 } })
    const result = await engine.waitFor(scope, task.id, (state) => state === 'INPUT_REQUIRED')
    assert.equal(result.state, 'COMPLETED')
  })

  it('resolves when the state waited for was passed within one committed batch', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'burst', input: { n: 2 } })
    const result = await engine.waitFor(scope, task.id, (state) => state === 'WORKING', { known: task })
    assert.ok(result.state === 'WORKING' || result.state === 'COMPLETED', result.state)
  })

  it('with a stale `known` task, reads the task instead of trusting it', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'burst', input: { n: 1 } })
    await engine.waitFor(scope, task.id, isTerminal)
    const result = await engine.waitFor(scope, task.id, isTerminal, { known: task })
    assert.equal(result.state, 'COMPLETED')
    assert.equal(result.artifacts.length, 1)
  })
})

describe('a write the store fails mid-run', () => {
  it('stops the run: nothing emitted afterwards is written, and the task is run again once the lease lapses', async () => {
    const runs: { laterCall: 'accepted' | 'rejected' | 'not reached' }[] = []
    const stepper = defineAgent({
      id: '11111111-2222-4333-8444-555555555603',
      slug: 'stepper',
      name: 'Stepper',
      description: 'Publishes a0, waits, publishes a1: for a store failure between the two.',
      inputSchema: { type: 'object' },
      async handler(_input, ctx) {
        const run: (typeof runs)[number] = { laterCall: 'not reached' }
        runs.push(run)
        await ctx.artifact({ type: 'text', name: 'a0', text: 'first' })
        await new Promise((resolve) => setTimeout(resolve, 30))
        try {
          await ctx.artifact({ type: 'text', name: 'a1', text: 'second' })
          run.laterCall = 'accepted'
        } catch {
          run.laterCall = 'rejected'
          throw ctx.signal.reason
        }
        return {}
      },
    })
    const failing = createMemoryStore()
    let failures = 0
    // The first append carrying a0 fails, as a disk would.
    const flaky = interceptAppend(failing, (request, append) => {
      const carriesA0 = request.events.some((e) => e.kind === 'artifact' && e.artifact.name === 'a0')
      if (carriesA0 && failures === 0) {
        failures += 1
        return Promise.reject(new Error('disk I/O error'))
      }
      return append(request)
    })
    const flakyEngine = new Engine({
      store: flaky,
      bus: new LocalBus(),
      agents: new AgentRegistry([stepper]),
      singleProcess: true,
      leaseMs: 400,
      pollMs: 50,
    })
    await flakyEngine.start()
    // The engine's timers do not hold the process open (a server's socket does): this test's must.
    const keepAlive = setInterval(() => {}, 1_000)
    try {
      const { task } = await flakyEngine.submit({ caller: ANONYMOUS, agent: 'stepper', input: {} })
      const done = await flakyEngine.waitFor(scope, task.id, isTerminal)
      assert.equal(failures, 1)
      assert.deepEqual(runs, [{ laterCall: 'rejected' }, { laterCall: 'accepted' }])
      assert.equal(done.state, 'COMPLETED')
      assert.deepEqual(
        done.artifacts.map((a) => a.name),
        ['a0', 'a1'],
        'each once, in order: the failed run wrote nothing after its failed batch',
      )
    } finally {
      clearInterval(keepAlive)
      await flakyEngine.stop()
      await failing.close()
    }
  })
})
