/**
 * Engine.followTask: each event with the task as it stood at that event, and a resumed stream
 * reads the store from its cursor, not from the first event.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import type { EventBody, TaskEvent } from '../../src/model/events.ts'
import { fold, headerOf } from '../../src/model/fold.ts'
import { newId } from '../../src/model/ids.ts'
import { DEFAULT_SCOPE as scope, type Task } from '../../src/model/task.ts'
import { nowIso } from '../../src/model/time.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { instantAgent } from '../helpers/agents.ts'

/** Every readEvents call the engine makes: the cursor it reads after, and how many it asks for. */
const reads: { afterSeq: number; limit: number | undefined }[] = []
const memory = createMemoryStore()
const store = new Proxy(memory, {
  get(target, name, receiver) {
    if (name === 'readEvents') {
      return (taskId: string, afterSeq: number, limit?: number) => {
        reads.push({ afterSeq, limit })
        return target.readEvents(taskId, afterSeq, limit)
      }
    }
    const value = Reflect.get(target, name, receiver)
    return typeof value === 'function' ? value.bind(target) : value
  },
}) as Store
const bus = new LocalBus()
// Not started: nothing runs the tasks, the test writes their events itself.
const engine = new Engine({ store, bus, agents: new AgentRegistry([instantAgent]) })

before(() => memory.init())
after(() => memory.close())

const createTask = async (): Promise<Task> =>
  (
    await store.createTask({
      header: { id: newId(), ...scope, agent: 'instant', contextId: newId(), createdAt: nowIso() },
      input: { n: 1 },
    })
  ).task

/** Appends as a run would: committed, then published on the bus. */
const write = async (taskId: string, events: EventBody[]): Promise<Task> => {
  const appended = await store.append({ taskId, events })
  bus.publish(taskId, appended.events, appended.task)
  return appended.task
}

const logs = (count: number, from = 0): EventBody[] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'log', level: 'INFO', message: `line ${from + i}` }))

/** A task through a question and its answer, an artifact and many log lines, to COMPLETED. */
const finishedTask = async (): Promise<Task> => {
  const { id } = await createTask()
  await write(id, [{ kind: 'status', state: 'WORKING' }, ...logs(3)])
  await write(id, [
    {
      kind: 'artifact',
      artifact: { id: newId(), taskId: id, createdAt: nowIso(), type: 'text', text: 'draft' },
    },
    { kind: 'status', state: 'INPUT_REQUIRED', prompt: 'more?', messageId: newId() },
  ])
  await write(id, [
    { kind: 'input', input: { more: true }, text: 'yes' },
    { kind: 'status', state: 'WORKING' },
  ])
  await write(id, logs(600, 3))
  return write(id, [{ kind: 'status', state: 'COMPLETED', output: { ok: true } }])
}

/**
 * Each event followed, with a copy of the task as the stream showed it then, as JSON: what the
 * frames see (a fold clears a prompt by setting it undefined, the stored task has no such key).
 */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

const collect = async (
  steps: AsyncIterable<{ event: TaskEvent; task: Task }>,
): Promise<{ event: TaskEvent; task: Task }[]> => {
  const seen: { event: TaskEvent; task: Task }[] = []
  for await (const { event, task } of steps) seen.push({ event, task: asJson(task) })
  return seen
}

describe('Engine.followTask', () => {
  it('a reconnect at the current version starts from the snapshot: no event is read again', async () => {
    const task = await finishedTask()
    reads.length = 0
    const steps = await engine.followTask(scope, task.id, { afterSeq: task.version, known: task })
    assert.deepEqual(await collect(steps), [])
    assert.equal(reads.length, 0, 'a finished task at the cursor has nothing left to read')

    const live = await createTask()
    const working = await write(live.id, [{ kind: 'status', state: 'WORKING' }, ...logs(2)])
    const cursor = working.version
    reads.length = 0
    // The stream folds on into the task it is handed: `working` moves on with it.
    const following = collect(await engine.followTask(scope, live.id, { afterSeq: cursor, known: working }))
    await write(live.id, logs(2, 2))
    await write(live.id, [{ kind: 'status', state: 'COMPLETED', output: {} }])
    const seen = await following
    assert.deepEqual(
      seen.map((s) => s.event.seq),
      [6, 7, 8],
    )
    assert.equal(seen.at(-1)!.task.state, 'COMPLETED')
    assert.ok(
      reads.every((r) => r.afterSeq >= cursor),
      `reads start at the cursor, not at sequence 0: ${JSON.stringify(reads)}`,
    )
  })

  it('an older cursor folds the log up to it in pages, then yields each later event with the task as it stood', async () => {
    const task = await finishedTask()
    const log = await memory.readEvents(task.id, 0)
    const afterSeq = 550
    reads.length = 0
    const seen = await collect(await engine.followTask(scope, task.id, { afterSeq }))
    assert.deepEqual(reads, [
      { afterSeq: 0, limit: 500 },
      { afterSeq: 500, limit: 50 },
      { afterSeq: 550, limit: 500 },
    ])
    assert.deepEqual(
      seen.map((s) => s.event),
      log.slice(afterSeq),
    )
    for (const { event, task: asItStood } of seen) {
      assert.deepEqual(
        asItStood,
        asJson(fold(headerOf(task), log.slice(0, event.seq))),
        `the task at seq ${event.seq}`,
      )
    }
    assert.deepEqual(seen.at(-1)!.task, asJson(task), 'the fold ends at the stored task')
  })

  it('a cursor at 0 replays every event, each with the task as it stood', async () => {
    const task = await finishedTask()
    const log = await memory.readEvents(task.id, 0)
    const seen = await collect(await engine.followTask(scope, task.id, { afterSeq: 0, known: task }))
    assert.equal(seen.length, log.length)
    const third = seen[2]!
    assert.deepEqual(third.task, asJson(fold(headerOf(task), log.slice(0, 3))))
    assert.equal(third.task.state, 'WORKING')
  })
})
