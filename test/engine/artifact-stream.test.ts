/**
 * ctx.artifactStream in the engine: every piece a chunk event in the task's log, batched with the
 * run's other writes, the task showing the text so far; replay recognises what was written; a
 * stream left open ends with the outcome; the limits hold.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ArtifactStream } from '../../src/agent/context.ts'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { LIMITS } from '../../src/engine/limits.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import type { Artifact } from '../../src/model/artifacts.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import type { ChunkEvent, TaskEvent } from '../../src/model/events.ts'
import { isTerminal, type TaskState } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope } from '../../src/model/task.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { hold, interruptedTellerAgent, release, TOKENS, tellerAgent } from '../fixtures/chunk-agents.ts'

/** Tries `write` and reports how it failed: what a handler sees past a limit. */
const refusal = async (write: () => Promise<unknown>): Promise<string | null> => {
  try {
    await write()
    return null
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}

const limitsAgent = defineAgent({
  id: '7a1e5c3b-2d4f-4e6a-8b9c-0d1e2f3a4b60',
  slug: 'stream-limits',
  name: 'Stream Limits',
  description: 'Runs into every limit of a streamed artifact, for tests.',
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    if (input.case === 'bytes') {
      const s = await ctx.artifactStream()
      await s.append('x'.repeat(LIMITS.inlineArtifactBytes - 1))
      const over = await refusal(() => s.append('yz'))
      await s.append('y')
      return { over, after: await refusal(() => s.end()) }
    }
    if (input.case === 'task-cap') {
      const s = await ctx.artifactStream()
      await s.append('x'.repeat(60))
      return { over: await refusal(() => s.append('x'.repeat(50))) }
    }
    if (input.case === 'ended') {
      const s = await ctx.artifactStream()
      await s.end('done')
      await s.end()
      return { after: await refusal(() => s.append('more')) }
    }
    if (input.case === 'empty') {
      const s = await ctx.artifactStream()
      await s.append('')
      await s.append('a')
      await s.append('')
      await s.end()
      return {}
    }
    if (input.case === 'type') {
      return { refused: await refusal(() => ctx.artifactStream({ type: 'json' as 'text' })) }
    }
    // chunk count: a stream of exactly the most chunks, then one past it.
    const s: ArtifactStream = await ctx.artifactStream()
    for (let i = 0; i < LIMITS.artifactChunks - 1; i++) await s.append('.')
    const over = await refusal(() => s.append('.'))
    await s.end()
    return { over }
  },
})

type AppendRequest = Parameters<Store['append']>[0]

let store: SqliteStore
let appends: AppendRequest[] = []
let engine: Engine
before(async () => {
  store = createMemoryStore()
  const recording = new Proxy(store, {
    get(target, key) {
      if (key === 'append')
        return (request: AppendRequest) => {
          appends.push(request)
          return target.append(request)
        }
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  engine = new Engine({
    store: recording,
    bus: new LocalBus(),
    agents: new AgentRegistry([tellerAgent, interruptedTellerAgent, limitsAgent]),
    singleProcess: true,
    taskArtifactBytes: LIMITS.inlineArtifactBytes + 1024,
  })
  await engine.start()
})
after(async () => {
  await engine.stop()
  await store.close()
})

const settled = (state: TaskState) => isTerminal(state) || state === 'INPUT_REQUIRED'

const run = async (agent: string, input: Record<string, unknown>) => {
  const { task } = await engine.submit({ caller: ANONYMOUS, agent, input })
  const done = await engine.waitFor(scope, task.id, settled, { known: task })
  return { done, events: await store.readEvents(task.id, 0, 1_000_000) }
}

const chunksOf = (events: TaskEvent[]): ChunkEvent[] => events.filter((e) => e.kind === 'chunk')

describe('ctx.artifactStream', () => {
  it('writes one event per piece, after the empty opening, and the task shows the text so far', async () => {
    appends = []
    const tokens = Array.from({ length: 1000 }, (_, i) => `w${i} `)
    const { done, events } = await run('teller', { tokens })
    assert.equal(done.state, 'COMPLETED')
    const opening = events.find((e) => e.kind === 'artifact')
    assert.equal(
      opening?.kind === 'artifact' && opening.artifact.type === 'text' && opening.artifact.text,
      '',
    )
    assert.deepEqual(opening?.kind === 'artifact' && opening.artifact.stream, { chunks: 0, done: false })
    const chunks = chunksOf(events)
    assert.deepEqual(
      chunks.map((c) => c.text),
      [...tokens, ''],
    )
    assert.deepEqual(
      chunks.map((c) => c.lastChunk),
      [...tokens.map(() => false), true],
    )
    const story = done.artifacts[0] as Artifact & { type: 'text' }
    assert.equal(story.text, tokens.join(''))
    assert.deepEqual(story.stream, { chunks: 1001, done: true })
    assert.equal(story.mediaType, 'text/markdown')
    // Pieces the handler awaits one by one still share batches: a thousand pieces, a few writes.
    const ofTask = appends.filter((a) => a.taskId === done.id)
    assert.ok(ofTask.length <= 10, `${ofTask.length} writes for 1,000 pieces`)
    const stored = await engine.getArtifact(scope, story.id)
    assert.equal(stored.artifact.type === 'text' && stored.artifact.text, tokens.join(''))
  })

  it('is replayed by position: pieces written before a question are not written again', async () => {
    const { done } = await run('interrupted-teller', {})
    assert.equal(done.state, 'INPUT_REQUIRED')
    assert.equal(done.artifacts[0]?.type === 'text' && done.artifacts[0].text, 'Hello,')
    await engine.provideInput({ scope, taskId: done.id, input: { name: 'Ada' } })
    const finished = await engine.waitFor(scope, done.id, isTerminal)
    assert.equal(finished.state, 'COMPLETED')
    assert.equal(finished.artifacts.length, 1, 'the replay opened no second stream')
    const greeting = finished.artifacts[0] as Artifact & { type: 'text' }
    assert.equal(greeting.text, 'Hello, Ada!')
    assert.deepEqual(greeting.stream, { chunks: 4, done: true })
    const chunks = chunksOf(await store.readEvents(done.id, 0))
    assert.deepEqual(
      chunks.map((c) => c.text),
      ['Hello', ',', ' Ada', '!'],
    )
  })

  it('is ended with the outcome when the handler returns or fails with it open', async () => {
    for (const [input, state] of [
      [{ leave_open: true }, 'COMPLETED'],
      [{ fail: true }, 'FAILED'],
    ] as const) {
      const { done, events } = await run('teller', { tokens: ['a', 'b'], ...input })
      assert.equal(done.state, state)
      const last = events.at(-2)
      assert.deepEqual(
        last && {
          kind: last.kind,
          text: 'text' in last && last.text,
          lastChunk: 'lastChunk' in last && last.lastChunk,
        },
        { kind: 'chunk', text: '', lastChunk: true },
        'the last chunk comes right before the outcome, in its write',
      )
      assert.equal(events.at(-1)?.kind === 'status' && events.at(-1)?.seq, last!.seq + 1)
      assert.deepEqual(done.artifacts[0]?.stream, { chunks: 3, done: true })
      assert.equal(done.artifacts[0]?.type === 'text' && done.artifacts[0].text, 'ab')
    }
  })

  it('writes nothing for an empty piece, and refuses a piece after the end', async () => {
    const empty = await run('stream-limits', { case: 'empty' })
    assert.deepEqual(
      chunksOf(empty.events).map((c) => c.text),
      ['a', ''],
    )
    const ended = await run('stream-limits', { case: 'ended' })
    assert.match(String(ended.done.output?.after), /^Error: artifact stream .* has ended/)
    assert.equal(chunksOf(ended.events).length, 1, 'ending twice writes one last chunk')
  })

  it('refuses a piece past the text limit, and the stream can still be ended', async () => {
    const { done, events } = await run('stream-limits', { case: 'bytes' })
    assert.equal(done.state, 'COMPLETED')
    assert.match(String(done.output?.over), /^RangeError: a streamed artifact is limited to 1048576 bytes/)
    assert.equal(done.output?.after, null)
    const text = done.artifacts[0]?.type === 'text' ? done.artifacts[0].text : ''
    assert.equal(text.length, LIMITS.inlineArtifactBytes)
    assert.equal(chunksOf(events).at(-1)?.lastChunk, true)
  })

  it("counts pieces towards the task's artifact cap", async () => {
    const capped = new Engine({
      store,
      bus: new LocalBus(),
      agents: new AgentRegistry([limitsAgent]),
      taskArtifactBytes: 100,
    })
    await capped.start()
    try {
      const { task } = await capped.submit({
        caller: ANONYMOUS,
        agent: 'stream-limits',
        input: { case: 'task-cap' },
      })
      const done = await capped.waitFor(scope, task.id, isTerminal)
      assert.match(
        String(done.output?.over),
        /^RangeError: the artifacts of a task are limited to 100 bytes in all; this one would make 110/,
      )
    } finally {
      await capped.stop()
    }
  })

  it('is text only', async () => {
    const { done } = await run('stream-limits', { case: 'type' })
    assert.match(String(done.output?.refused), /^TypeError: a streamed artifact is text, not "json"/)
  })

  it(`takes at most ${LIMITS.artifactChunks} chunks, the last included`, { timeout: 120_000 }, async () => {
    const { done } = await run('stream-limits', { case: 'count' })
    assert.equal(done.state, 'COMPLETED')
    assert.match(String(done.output?.over), /^RangeError: a streamed artifact is limited to 65536 chunks/)
    assert.deepEqual(done.artifacts[0]?.stream, { chunks: LIMITS.artifactChunks, done: true })
  })
})

describe('a streamed artifact across a restart', () => {
  it('goes on where it was: the re-run skips the recorded pieces and writes the rest', async () => {
    const retrying = defineAgent({ ...tellerAgent, slug: 'retrying-teller', retryable: true })
    const shared = createMemoryStore()
    const start = async () => {
      const engine = new Engine({
        store: shared,
        bus: new LocalBus(),
        agents: new AgentRegistry([retrying]),
        singleProcess: true,
        shutdownGraceMs: 10,
      })
      await engine.start()
      return engine
    }
    const gate = `restart-${Date.now()}`
    hold(gate)
    const first = await start()
    const { task } = await first.submit({
      caller: ANONYMOUS,
      agent: 'retrying-teller',
      input: { hold: gate, hold_after: 4 },
    })
    // Until four pieces are in the log: the handler then waits on the gate, and the server stops.
    const stop = new AbortController()
    let pieces = 0
    for await (const { event } of await first.followTask(scope, task.id, {
      afterSeq: 0,
      signal: stop.signal,
    })) {
      if (event.kind === 'chunk' && ++pieces === 4) break
    }
    stop.abort()
    await first.stop()
    release(gate)
    const second = await start()
    try {
      const done = await second.waitFor(scope, task.id, isTerminal)
      assert.equal(done.state, 'COMPLETED')
      const story = done.artifacts[0] as Artifact & { type: 'text' }
      assert.equal(done.artifacts.length, 1)
      assert.equal(story.text, TOKENS.join(''), 'no piece lost, none twice')
      assert.deepEqual(
        chunksOf(await shared.readEvents(task.id, 0)).map((c) => c.text),
        [...TOKENS, ''],
      )
    } finally {
      await second.stop()
      await shared.close()
    }
  })
})
