import type { EventBus, TaskNote } from '../events/contract.ts'
import type { TaskEvent } from '../model/events.ts'
import { applyEvent, emptyTask, headerOf } from '../model/fold.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import type { Store } from '../store/contract.ts'
import type { CallerSignal } from './caller-signal.ts'
import { LIMITS } from './limits.ts'
import { DONE, nextOf, PENDING, type Pullable, type Pulled, type Waker } from './pull.ts'
import type { TaskWatch } from './watch.ts'

/**
 * One event of a followed task, with the task as it stood at that event (folded up to and
 * including it). `task` is one object folded on in place: it is valid until the next iteration.
 */
export interface FollowedEvent {
  event: TaskEvent
  task: Task
}

export interface FollowOptions {
  store: Store
  bus: EventBus
  /** The task the stream starts from, folded on in place: the stream reads the events after its version. */
  task: Task
  /** Yield events with seq greater than this (events up to it are only folded): a Last-Event-ID. */
  afterSeq: number
  signal?: CallerSignal
  /** Opened before the write that returned `task`: it holds whatever followed, so nothing is read first. */
  watch?: TaskWatch
}

/** Events buffered for a slow consumer before it falls back to reading the store: bounded memory, no loss. */
const INBOX_LIMIT = 1024

const NO_EVENTS: readonly TaskEvent[] = []

const isTerminalEvent = (event: TaskEvent): boolean => event.kind === 'status' && isTerminal(event.state)

/**
 * The task at a cursor: `known` itself when it is already there (the usual reconnect), else the
 * fold of the log up to the cursor, read in pages. Only what the stream needs: no bus, no yield.
 */
export const taskAt = async (store: Store, known: Task, afterSeq: number): Promise<Task> => {
  if (afterSeq >= known.version) return known
  const task = emptyTask(headerOf(known))
  while (task.version < afterSeq) {
    const limit = Math.min(LIMITS.eventReadBatch, afterSeq - task.version)
    const events = await store.readEvents(known.id, task.version, limit)
    for (const event of events) applyEvent(task, event)
    if (events.length < limit) break
  }
  return task
}

type Step = IteratorResult<FollowedEvent, undefined>

/**
 * Every event of a task after its version, in order, once each, folded into the task; gives those
 * after `afterSeq`, and ends after the terminal status (at once when the task already is terminal).
 *
 * One path serves replays, live streams and resumes: subscribe to the bus first (so nothing
 * committed meanwhile is missed), read what the store has after the cursor, then serve notes from
 * the bus while they continue the sequence, going back to the store whenever there is a gap
 * (a note from another replica carries no events, or the consumer fell behind). A watch opened
 * before the write that returned the task stands for the subscription and the first read.
 *
 * Pulled (pull.ts) rather than an async generator: an open stream spends its life waiting in here,
 * and a suspended generator (its frame, its request queue, the promise chain of each layer above
 * it) costs more per stream than a registered waker. `next()` is the same steps as promises, for
 * the consumers that iterate. It subscribes at the first pull; `return()` ends it at once, even
 * while a waker waits, which is woken to pull the end. One consumer at a time.
 */
export class TaskFollower
  implements Pullable<FollowedEvent>, AsyncIterableIterator<FollowedEvent, undefined, undefined>
{
  readonly #store: Store
  readonly #bus: EventBus
  readonly #task: Task
  readonly #afterSeq: number
  readonly #signal: CallerSignal | undefined
  #watch: TaskWatch | undefined
  #opened = false
  #done = false
  /** Set by the terminal event: the next pull ends. */
  #ending = false
  /**
   * Notes' events not yet folded (a note's own array while there is one: a waiting follower keeps
   * none of its own), and whether the store must be read first (a gap, or no watch).
   */
  #inbox: readonly TaskEvent[] = NO_EVENTS
  #mustRead: boolean
  /**
   * The events being handed out (none once they are: a waiting follower keeps no events), and
   * whether they came from the store (no gap check needed).
   */
  #batch: readonly TaskEvent[] = NO_EVENTS
  #batchAt = 0
  #batchRead = false
  /** Who waits for a note or the end; while the store is read, who waits for the read. */
  #waker: Waker | undefined
  #reader: Waker | undefined
  /** The store read failed: the next pull throws it (boxed: what was thrown may be anything). */
  #failure: { error: unknown } | undefined
  #unsubscribe: (() => void) | undefined
  #onAbort: (() => void) | undefined

  constructor(options: FollowOptions) {
    this.#store = options.store
    this.#bus = options.bus
    this.#task = options.task
    this.#afterSeq = options.afterSeq
    this.#signal = options.signal
    this.#watch = options.watch
    this.#mustRead = options.watch === undefined
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<Step> {
    return nextOf(this)
  }

  pull(waker: Waker): Pulled<FollowedEvent> {
    try {
      return this.#step(waker)
    } catch (error) {
      this.#finish()
      throw error
    }
  }

  return(): Promise<Step> {
    this.#finish()
    return Promise.resolve(DONE)
  }

  #open(): void {
    this.#opened = true
    if (isTerminal(this.#task.state)) {
      this.#watch?.close()
      this.#done = true
      return
    }
    // Inline, unnamed closures and no arrow-function fields: under tsx (which keeps names) a named
    // closure gets a defineProperty that costs it 256 bytes, for as long as the stream is open.
    this.#unsubscribe = this.#watch
      ? this.#watch.listen((note) => this.#note(note))
      : this.#bus.subscribe(this.#task.id, (note) => this.#note(note))
    this.#watch = undefined
    if (this.#signal) {
      this.#onAbort = () => this.#rouse()
      this.#signal.addEventListener('abort', this.#onAbort)
    }
  }

  #note(note: TaskNote): void {
    if (note.seq <= this.#task.version) return
    const inbox = this.#inbox
    if (note.events && inbox.length < INBOX_LIMIT)
      this.#inbox = inbox.length === 0 ? note.events : inbox.concat(note.events)
    else this.#mustRead = true
    this.#rouse()
  }

  /**
   * Wakes the waker waiting for a note (or for the end): it pulls in a microtask, as a promise's
   * reaction would, not inside the bus's delivery or the signal's dispatch.
   */
  #rouse(): void {
    const waker = this.#waker
    this.#waker = undefined
    if (waker) queueMicrotask(() => waker.wake())
  }

  /** The next result, or PENDING with `waker` kept until a note, the end or the store's answer. */
  #step(waker: Waker): Pulled<FollowedEvent> {
    if (!this.#opened) this.#open()
    const failure = this.#failure
    if (failure) {
      this.#failure = undefined
      throw failure.error
    }
    const task = this.#task
    for (;;) {
      if (this.#done || this.#ending || this.#signal?.aborted) {
        this.#finish()
        return DONE
      }
      while (this.#batchAt < this.#batch.length) {
        const event = this.#batch[this.#batchAt++]!
        if (!this.#batchRead) {
          if (event.seq <= task.version) continue
          if (event.seq !== task.version + 1) {
            this.#mustRead = true
            this.#batch = NO_EVENTS
            break
          }
        }
        applyEvent(task, event)
        if (isTerminalEvent(event)) this.#ending = true
        if (event.seq > this.#afterSeq) return { done: false, value: { event, task } }
        if (this.#ending) break
      }
      if (this.#batchAt >= this.#batch.length) this.#batch = NO_EVENTS
      if (this.#ending) continue
      if (this.#reader) return PENDING
      if (this.#mustRead) {
        this.#mustRead = false
        this.#inbox = NO_EVENTS
        this.#read(waker)
        return PENDING
      }
      if (this.#inbox.length > 0) {
        this.#take(this.#inbox, false)
        this.#inbox = NO_EVENTS
        continue
      }
      this.#waker = waker
      return PENDING
    }
  }

  /**
   * Reads the next page of the log; `waker` pulls what it gave (or its failure, which ends the
   * follower). A note meanwhile wakes no one: the page is taken first.
   */
  #read(waker: Waker): void {
    this.#reader = waker
    const task = this.#task
    this.#store.readEvents(task.id, task.version, LIMITS.eventReadBatch).then(
      (events) => {
        this.#reader = undefined
        this.#take(events, true)
        // A full page: there may be more once it is drained.
        if (events.length === LIMITS.eventReadBatch) this.#mustRead = true
        waker.wake()
      },
      (error: unknown) => {
        this.#reader = undefined
        // A follower ended meanwhile has nothing to report: its next pull is the end.
        if (!this.#done) this.#failure = { error }
        waker.wake()
      },
    )
  }

  #take(events: readonly TaskEvent[], read: boolean): void {
    this.#batch = events
    this.#batchAt = 0
    this.#batchRead = read
  }

  #finish(): void {
    if (!this.#opened) {
      this.#opened = true
      this.#watch?.close()
      this.#watch = undefined
    }
    this.#done = true
    // Ended, by return() too: what failed before is no longer reported, the next pull is the end.
    this.#failure = undefined
    this.#batch = NO_EVENTS
    this.#inbox = NO_EVENTS
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    if (this.#onAbort) this.#signal?.removeEventListener('abort', this.#onAbort)
    this.#onAbort = undefined
    this.#rouse()
  }
}
