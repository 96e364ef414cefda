/**
 * TaskWatch: a watch opened before a task is created hands its follower everything committed
 * after the creation, so a blocking send (waitFor) and a new stream (followTask) need no read-back
 * of the store, even when the task ended before they started listening.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { TaskWatch } from '../../src/engine/watch.ts'
import type { EventBus } from '../../src/events/contract.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS, scopeOf } from '../../src/model/caller.ts'
import type { EventBody } from '../../src/model/events.ts'
import { newId } from '../../src/model/ids.ts'
import { isTerminal } from '../../src/model/states.ts'
import type { Task } from '../../src/model/task.ts'
import { nowIso } from '../../src/model/time.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { instantAgent } from '../helpers/agents.ts'

/** How many times the engine read a task's log back. */
let reads = 0
const memory = createMemoryStore()
const store = new Proxy(memory, {
  get(target, name, receiver) {
    if (name === 'readEvents') {
      return (taskId: string, afterSeq: number, limit?: number) => {
        reads += 1
        return target.readEvents(taskId, afterSeq, limit)
      }
    }
    const value = Reflect.get(target, name, receiver)
    return typeof value === 'function' ? value.bind(target) : value
  },
}) as Store

/** The bus, counting the listeners it holds: a watch nobody takes must not stay among them. */
const local = new LocalBus()
let listening = 0
const bus: EventBus = {
  publish: (taskId, events, task) => local.publish(taskId, events, task),
  subscribe: (taskId, listener) => {
    listening += 1
    const unsubscribe = local.subscribe(taskId, listener)
    let done = false
    return () => {
      if (!done) listening -= 1
      done = true
      unsubscribe()
    }
  },
  announceWork: () => local.announceWork(),
  onWork: (listener) => local.onWork(listener),
  close: () => local.close(),
}

const engine = new Engine({ store, bus, agents: new AgentRegistry([instantAgent]) })
const caller = { ...scopeOf(ANONYMOUS) }

before(async () => {
  await memory.init()
  await engine.start()
})
after(async () => {
  await engine.stop()
  await memory.close()
})

/**
 * A task of the instant agent, submitted (with a watch or without), that has completed before
 * anyone follows it from its creation: the follower must learn of everything after it.
 */
const completedUnwatched = async (watch: boolean): Promise<{ task: Task; watch?: TaskWatch }> => {
  const result = await engine.submit({
    caller: ANONYMOUS,
    agent: 'instant',
    input: { id: newId() },
    ...(watch && { watch: {} }),
  })
  // Waited for without the watch: it reads the store, so it cannot miss the end.
  await engine.waitFor(caller, result.task.id, isTerminal)
  return result
}

describe('TaskWatch', () => {
  it('a blocking wait started after the task ended gets its end from the watch, reading nothing back', async () => {
    const { task, watch } = await completedUnwatched(true)
    assert.ok(watch, 'a created task comes with its watch')
    reads = 0
    const done = await engine.waitFor(caller, task.id, isTerminal, { known: task, watch })
    assert.equal(done.state, 'COMPLETED')
    assert.ok(done.version > task.version)
    assert.equal(reads, 0)
    assert.equal(listening, 0, 'the watch let go of the bus')
  })

  it('without a watch the same wait reads the log back to learn what it missed', async () => {
    const { task, watch } = await completedUnwatched(false)
    assert.equal(watch, undefined)
    reads = 0
    const done = await engine.waitFor(caller, task.id, isTerminal, { known: task })
    assert.equal(done.state, 'COMPLETED')
    assert.equal(reads, 1)
  })

  it('a stream started after the task ended yields every event after the creation from the watch', async () => {
    const { task, watch } = await completedUnwatched(true)
    // The stream folds on into the task it is handed.
    const created = task.version
    reads = 0
    const events = await engine.followTask(caller, task.id, { afterSeq: created, known: task, watch })
    const seen: { seq: number; kind: string; state?: string }[] = []
    for await (const { event } of events)
      seen.push({ seq: event.seq, kind: event.kind, ...(event.kind === 'status' && { state: event.state }) })
    assert.equal(reads, 0)
    assert.deepEqual(
      seen.map((e) => e.seq),
      seen.map((_, i) => created + 1 + i),
      'contiguous, right after the creation',
    )
    assert.deepEqual(seen.at(-1), { seq: seen.at(-1)!.seq, kind: 'status', state: 'COMPLETED' })
    const stored = await memory.readEvents(task.id, created)
    assert.deepEqual(
      seen.map((e) => e.seq),
      stored.map((e) => e.seq),
    )
  })

  it('a watch for another start (a resumed cursor) is closed and the store is read as before', async () => {
    const { task, watch } = await completedUnwatched(true)
    reads = 0
    const events = await engine.followTask(caller, task.id, { afterSeq: 0, known: task, watch })
    let count = 0
    for await (const _ of events) count += 1
    assert.ok(reads > 0)
    assert.equal(count, (await memory.readEvents(task.id, 0)).length)
    assert.equal(listening, 0)
  })

  it('an idempotent repeat, which creates nothing, comes without a watch and leaves no listener', async () => {
    const key = { key: newId(), request: { n: 1 } }
    const first = await engine.submit({ caller: ANONYMOUS, agent: 'instant', input: {}, idempotency: key })
    await engine.waitFor(caller, first.task.id, isTerminal, { known: first.task })
    const repeat = await engine.submit({
      caller: ANONYMOUS,
      agent: 'instant',
      input: {},
      idempotency: key,
      watch: {},
    })
    assert.equal(repeat.created, false)
    assert.equal(repeat.task.id, first.task.id)
    assert.equal(repeat.watch, undefined)
    assert.equal(listening, 0)
  })

  it('an unused watch on a task that does not end lets go when its signal aborts', () => {
    const aborted = new AbortController()
    const watch = new TaskWatch(bus, newId(), aborted.signal)
    assert.equal(listening, 1)
    aborted.abort()
    assert.equal(listening, 0)
    watch.close()
    assert.equal(listening, 0)
  })

  it('holds notes until taken, then forwards; past its limit it says "read the store" once', () => {
    const taskId = newId()
    const watch = new TaskWatch(bus, taskId)
    const log = (seq: number): EventBody & { seq: number; at: string } => ({
      kind: 'log',
      level: 'INFO',
      message: `line ${seq}`,
      seq,
      at: nowIso(),
    })
    for (let seq = 1; seq <= 3; seq++) local.publish(taskId, [log(seq)])
    const heard: { seq: number; events: number | undefined }[] = []
    const stop = watch.listen((note) => heard.push({ seq: note.seq, events: note.events?.length }))
    assert.deepEqual(
      heard.map((n) => n.seq),
      [1, 2, 3],
    )
    local.publish(taskId, [log(4)])
    assert.deepEqual(heard.at(-1), { seq: 4, events: 1 })
    assert.throws(() => watch.listen(() => {}), /already taken/)
    stop()
    assert.equal(listening, 0)

    const flooded = new TaskWatch(bus, taskId)
    for (let seq = 1; seq <= 300; seq++) local.publish(taskId, [log(seq)])
    const after: { seq: number; events: number | undefined }[] = []
    flooded.listen((note) => after.push({ seq: note.seq, events: note.events?.length }))
    assert.equal(after[0]?.events, undefined, 'the first note held is one without events: read the store')
    assert.ok(after.length < 300)
    assert.equal(after.at(-1)?.seq, 300)
    flooded.close()
    assert.equal(listening, 0)
  })
})
