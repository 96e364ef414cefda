/**
 * TaskFollower's ending: a stream that stops (the client went away) lets go of the bus at once,
 * even while it waits for the next event, and a failed read ends it the same way. The events it
 * yields are covered by follow.test.ts and watch.test.ts.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { updates } from '../../src/dialects/a2a/stream.ts'
import { TaskFollower } from '../../src/engine/follow.ts'
import { PENDING, type Waker } from '../../src/engine/pull.ts'
import type { EventBus, TaskListener } from '../../src/events/contract.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { newId } from '../../src/model/ids.ts'
import { DEFAULT_SCOPE as scope, type Task } from '../../src/model/task.ts'
import { nowIso } from '../../src/model/time.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { countingWaker } from './counting-waker.ts'

const store = createMemoryStore()
before(() => store.init())
after(() => store.close())

/** A LocalBus that counts the subscriptions still open. */
const countingBus = (): { bus: EventBus; open: () => number } => {
  const local = new LocalBus()
  let open = 0
  const bus: EventBus = Object.assign(Object.create(local) as LocalBus, {
    subscribe(taskId: string, listener: TaskListener) {
      open++
      const unsubscribe = local.subscribe(taskId, listener)
      let done = false
      return () => {
        if (!done) open--
        done = true
        unsubscribe()
      }
    },
    publish: local.publish.bind(local),
  })
  return { bus, open: () => open }
}

/** The store, its event reads replaced. */
const readingWith = (readEvents: (...args: Parameters<Store['readEvents']>) => Promise<unknown>): Store =>
  Object.assign(Object.create(store) as Store, { readEvents })

const liveTask = async (): Promise<Task> =>
  (
    await store.createTask({
      header: { id: newId(), ...scope, agent: 'instant', contextId: newId(), createdAt: nowIso() },
      input: {},
    })
  ).task

/** Resolves with what `next()` settled with, or 'pending' when it has not settled yet. */
const settledOrPending = async <T>(promise: Promise<T>): Promise<T | 'pending'> => {
  const marker = Symbol('pending')
  // Every continuation queued so far runs before a macrotask: a result that is ready is seen.
  const tick = new Promise<typeof marker>((resolve) => setImmediate(() => resolve(marker)))
  const value = await Promise.race([promise, tick])
  return value === marker ? 'pending' : (value as T)
}

describe('TaskFollower', () => {
  it('return() while next() waits: the bus is let go of at once and the waiting next() is done', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const follower = new TaskFollower({ store, bus, task, afterSeq: task.version })
    const waiting = follower.next()
    assert.equal(await settledOrPending(waiting), 'pending', 'nothing happened yet: it waits')
    assert.equal(open(), 1)
    const returned = follower.return()
    // An async generator queues return() behind the next() it is suspended in: the bus stayed held.
    assert.equal(open(), 0, 'unsubscribed by return() itself')
    assert.deepEqual(await waiting, { done: true, value: undefined })
    assert.deepEqual(await returned, { done: true, value: undefined })
    assert.deepEqual(await follower.next(), { done: true, value: undefined })
  })

  it('the A2A stream items pass return() through to the follower', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const items = updates(new TaskFollower({ store, bus, task, afterSeq: task.version }), 'http://x')
    const waiting = items.next()
    assert.equal(await settledOrPending(waiting), 'pending')
    assert.equal(open(), 1)
    await items.return!()
    assert.equal(open(), 0)
    assert.deepEqual(await waiting, { done: true, value: undefined })
  })

  it('an aborted signal ends a waiting next(), and events that came before it are served first', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const controller = new AbortController()
    const follower = new TaskFollower({ store, bus, task, afterSeq: task.version, signal: controller.signal })
    const first = follower.next()
    assert.equal(await settledOrPending(first), 'pending')
    const appended = await store.append({ taskId: task.id, events: [{ kind: 'status', state: 'WORKING' }] })
    bus.publish(task.id, appended.events, appended.task)
    const step = await first
    assert.equal(step.done, false)
    assert.equal(step.value?.event.seq, appended.task.version)
    const second = follower.next()
    assert.equal(await settledOrPending(second), 'pending')
    controller.abort()
    assert.deepEqual(await second, { done: true, value: undefined })
    assert.equal(open(), 0)
  })

  it('a store read that fails rejects next() and lets go of the bus', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const failing = readingWith(() => Promise.reject(new Error('disk gone')))
    const follower = new TaskFollower({ store: failing, bus, task, afterSeq: task.version })
    await assert.rejects(follower.next(), /disk gone/)
    assert.equal(open(), 0)
    assert.deepEqual(await follower.next(), { done: true, value: undefined })
  })

  it('a follower never iterated holds nothing; one of a terminal task ends at once', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const unused = new TaskFollower({ store, bus, task, afterSeq: task.version })
    assert.equal(open(), 0, 'it subscribes at its first next()')
    await unused.return()
    const ended = await store.append({
      taskId: task.id,
      events: [
        { kind: 'status', state: 'WORKING' },
        { kind: 'status', state: 'COMPLETED', output: {} },
      ],
    })
    const follower = new TaskFollower({ store, bus, task: ended.task, afterSeq: ended.task.version })
    assert.deepEqual(await follower.next(), { done: true, value: undefined })
    assert.equal(open(), 0)
  })

  it('a waiting pull keeps its waker and wakes it once, after the publish and not inside it', async () => {
    const { bus } = countingBus()
    const task = await liveTask()
    const follower = new TaskFollower({ store, bus, task, afterSeq: task.version })
    const { waker, woken, wakes } = countingWaker()
    // No watch: the first pull reads the store, which has nothing after the task's version.
    assert.equal(follower.pull(waker), PENDING)
    await woken
    assert.equal(follower.pull(waker), PENDING, 'the log holds nothing more: it waits for a note')
    const appended = await store.append({ taskId: task.id, events: [{ kind: 'status', state: 'WORKING' }] })
    bus.publish(task.id, appended.events, appended.task)
    assert.equal(wakes(), 1, 'not woken inside the publish')
    await Promise.resolve()
    assert.equal(wakes(), 2)
    const step = follower.pull(waker)
    assert.notEqual(step, PENDING)
    assert.equal(step !== PENDING && !step.done && step.value.event.seq, appended.task.version)
    await follower.return()
  })

  it('a note while the store is read wakes no one: the page comes first, every event once', async () => {
    const { bus } = countingBus()
    const task = await liveTask()
    const appended = await store.append({ taskId: task.id, events: [{ kind: 'status', state: 'WORKING' }] })
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow = readingWith(async (...args) => {
      await released
      return store.readEvents(...args)
    })
    const follower = new TaskFollower({ store: slow, bus, task, afterSeq: task.version })
    let wakes = 0
    const waker: Waker = {
      wake() {
        wakes++
      },
    }
    assert.equal(follower.pull(waker), PENDING, 'reading the store')
    const later = await store.append({
      taskId: task.id,
      events: [{ kind: 'log', message: 'x', level: 'INFO' }],
    })
    bus.publish(task.id, appended.events, appended.task)
    bus.publish(task.id, later.events, later.task)
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(wakes, 0, 'the notes wait behind the read')
    assert.equal(follower.pull(waker), PENDING, 'still reading')
    release()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(wakes, 1)
    const seqs: number[] = []
    for (;;) {
      const step = follower.pull(waker)
      if (step === PENDING || step.done) break
      seqs.push(step.value.event.seq)
    }
    assert.deepEqual(seqs, [appended.task.version, later.task.version])
    await follower.return()
  })

  it('a read that fails after return() is not reported: the follower has ended', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    let fail!: (error: Error) => void
    const failing = readingWith(
      () =>
        new Promise((_, reject) => {
          fail = reject
        }),
    )
    const follower = new TaskFollower({ store: failing, bus, task, afterSeq: task.version })
    const waiting = follower.next()
    await follower.return()
    assert.equal(open(), 0)
    fail(new Error('disk gone'))
    assert.deepEqual(await waiting, { done: true, value: undefined })
    assert.deepEqual(await follower.next(), { done: true, value: undefined })
  })

  it('return() after a read failed, before the failure was pulled: the next pull is the end', async () => {
    const { bus, open } = countingBus()
    const task = await liveTask()
    const failing = readingWith(() => Promise.reject(new Error('disk gone')))
    const follower = new TaskFollower({ store: failing, bus, task, afterSeq: task.version })
    const { waker, woken } = countingWaker()
    assert.equal(follower.pull(waker), PENDING, 'reading the store')
    await woken
    await follower.return()
    assert.equal(open(), 0)
    assert.deepEqual(follower.pull(waker), { done: true, value: undefined })
  })
})
