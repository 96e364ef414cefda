import type { FastifyReply } from 'fastify'
import type { TaskFollower } from '../../engine/follow.ts'
import {
  DONE,
  isPullable,
  nextOf,
  PENDING,
  type Pullable,
  type Pulled,
  PulledIterator,
  type Waker,
} from '../../engine/pull.ts'
import type { JsonText } from '../../model/json.ts'
import { isTerminal, type TaskState } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { ServerContext } from '../../web/context.ts'
import { type CloseListener, type SseFrame, SseStream } from '../../web/sse.ts'
import { type A2aFailure, toA2aFailure } from './errors.ts'
import { streamItemsOf, toA2aTask } from './mapping.ts'
import type { StreamItem } from './wire/shapes.ts'

/**
 * When an A2A stream ends: at a terminal state, and right after it reports INPUT_REQUIRED (the
 * client must send a message to go on; digest §3.2). AUTH_REQUIRED keeps it open because the
 * credential may arrive out of band.
 */
export const endsStream = (state: TaskState): boolean => isTerminal(state) || state === 'INPUT_REQUIRED'

export interface LiveStreamOptions {
  /** The task as the stream starts; its first item. */
  snapshot: Task
  /** The events after the snapshot's version, folded on into it; none when the stream ends at the snapshot. */
  events: TaskFollower | undefined
  baseUrl: string
  historyLength?: number | undefined
}

/**
 * The copy of a task that a subscription's follower folds the later events into. The updates made
 * from it (streamItemsOf) never show the conversation, the input or the answers, so the copy leaves
 * them out: every open subscription kept its own, and ten thousand subscribers of a task held ten
 * thousand copies of its first message (bench/HISTORY.md, _Memory per open stream_). A spread that
 * only overrides members keeps the task's shape; one of a destructured rest gave every copy a
 * hidden class of its own (400 bytes more a stream than it saved).
 */
export const followedCopy = (task: Task): Task => ({ ...task, input: {}, answers: [], history: [] })

/** A stream's items, as the dialects' stream writers take them. */
export type StreamItems = AsyncIterableIterator<StreamItem, undefined, undefined>

/**
 * The Task first, then every later event as updates, until the task is terminal or waits for input.
 * The first item is made now, before the events fold on into the snapshot (the caller hands it
 * over: a task it read or created for this stream), so an open stream holds one copy.
 */
export const liveStream = (options: LiveStreamOptions): StreamItems => {
  const { snapshot, events, baseUrl } = options
  const first: StreamItem = {
    id: snapshot.version,
    response: { task: toA2aTask(snapshot, { baseUrl, historyLength: options.historyLength }) },
  }
  return new UpdateItems({ first, events, baseUrl })
}

/** The followed events as updates, with no Task first (a resumed subscription, the rest of a stream). */
export const updates = (events: TaskFollower, baseUrl: string): StreamItems =>
  new UpdateItems({ events, baseUrl })

const NO_ITEMS: readonly StreamItem[] = []

/**
 * The items of followed events (after `first`, when given) until the task is terminal or waits for
 * input. Pulled, as the engine's TaskFollower is, and for the same reason: an open stream waits in
 * it, and each layer that waits on a promise costs memory per stream; the pump's waker is handed
 * down to the follower, so a waiting stream keeps no promise at all.
 */
class UpdateItems implements StreamItems, Pullable<StreamItem> {
  #first: StreamItem | undefined
  readonly #events: TaskFollower | undefined
  readonly #baseUrl: string
  /** The items of the last event, until the last of them is taken (a waiting stream keeps none). */
  #items: readonly StreamItem[] = NO_ITEMS
  #at = 0
  /** The last event was read (or the consumer stopped): what is queued goes out, then done. */
  #ended = false

  constructor(options: { first?: StreamItem; events: TaskFollower | undefined; baseUrl: string }) {
    this.#first = options.first
    this.#events = options.events
    this.#baseUrl = options.baseUrl
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<StreamItem, undefined>> {
    return nextOf(this)
  }

  pull(waker: Waker): Pulled<StreamItem> {
    for (;;) {
      const first = this.#first
      if (first) {
        this.#first = undefined
        return { done: false, value: first }
      }
      if (this.#at < this.#items.length) {
        const value = this.#items[this.#at++]!
        if (this.#at === this.#items.length) this.#items = NO_ITEMS
        return { done: false, value }
      }
      if (this.#ended || !this.#events) {
        this.#stop()
        return DONE
      }
      const step = this.#events.pull(waker)
      if (step === PENDING) return PENDING
      if (step.done) {
        this.#ended = true
        return DONE
      }
      const { event, task } = step.value
      this.#items = streamItemsOf(event, task, this.#baseUrl)
      this.#at = 0
      if (event.kind === 'status' && endsStream(event.state)) this.#ended = true
    }
  }

  /** Stops following the task (at once, even while a pull waits); nothing more is served. */
  async return(): Promise<IteratorResult<StreamItem, undefined>> {
    this.#stop()
    return DONE
  }

  #stop(): void {
    this.#ended = true
    this.#first = undefined
    this.#items = NO_ITEMS
    // The follower's return() cannot fail: it lets go of the bus and settles at once.
    void this.#events?.return()
  }
}

/** `T`: a 1.0 StreamItem, or a 0.3 one: anything with the sequence of the event it ends. */
export interface ServeStreamOptions<T extends { id?: number } = StreamItem> {
  reply: FastifyReply
  server: ServerContext
  /** An iterator (iterable as itself), so that the one the pump reads is the one a disconnect ends. */
  items: AsyncIterableIterator<T>
  encoding: StreamEncoding<T>
}

/**
 * How a binding (and version) writes a stream. An object with methods, made once per binding where
 * it can be (HTTP+JSON) and else one small instance a stream (JSON-RPC's request id): a stream
 * keeps it for as long as it is open, and two closures and their scope cost three times as much.
 */
export interface StreamEncoding<T> {
  /** The `data:` of an item in this binding's envelope. */
  encode(item: T): JsonText
  /** The frame reporting a failure after the stream has started. */
  encodeError(failure: A2aFailure): SseFrame
}

/**
 * How long an A2A stream's head and first item wait for the items that follow, in turns of the
 * event loop. A run whose agent writes at once has its first events committed two turns after it
 * starts: its batch yields one (engine/run.ts), the SQLite group commit another (store/sqlite/db.ts);
 * one more, so that it does not matter whether the run or the stream was scheduled first in a
 * turn. Held that long, a quick task's whole stream is one socket write instead of two
 * (bench/HISTORY.md, _One write a stream_); a stream whose events come later gets its first item
 * three turns later.
 */
export const OPENING_HOLD_TURNS = 3

const pingComment = (): string => ': ping\n\n'
/** A return() that fails has failed the stream's own pull already: StreamPump reports that. */
const ignore = (): void => {}

/**
 * Writes the items as SSE, `id:` being the task's event sequence. Everything that can fail before
 * the first event has already happened, so errors here are mid-stream: one error frame, then close.
 * Returns once the stream is open: the items are written by a StreamPump, so the route's handler
 * settles at once instead of waiting, with its promise and fastify's on it, as long as the stream.
 */
export const serveStream = <T extends { id?: number }>(options: ServeStreamOptions<T>): void => {
  const { reply, server, items } = options
  reply.hijack()
  // The request's body has been read into the items: the open stream need not keep it with its request.
  reply.request.body = undefined
  const stream = new SseStream(reply.raw, server.heartbeats, pingComment)
  // Items that only iterate (generators: 0.3's, a direct reply) are pulled through their next().
  const source = isPullable<T>(items) ? items : new PulledIterator(items)
  const pump = new StreamPump({ stream, items: source, encoding: options.encoding, server })
  // A client that goes away ends the items at once, even while they wait for the task's next event.
  stream.open({ onClose: pump, holdTurns: OPENING_HOLD_TURNS })
  pump.wake()
}

/**
 * The loop `for await (const item of items)` would be, pulling instead (engine/pull.ts): an open
 * stream mostly waits for its next item, and an async function waiting there keeps its frame, its
 * promise and the promises of whoever awaits it; the pump waits as the items' waker. As that loop
 * does, it calls the items' `return()` when it stops before their end or on an item it cannot
 * write, and not when they end or fail.
 */
class StreamPump<T extends { id?: number }> implements CloseListener, Waker {
  readonly #stream: SseStream
  readonly #items: Pullable<T>
  readonly #encoding: StreamEncoding<T>
  readonly #server: ServerContext

  constructor(options: {
    stream: SseStream
    items: Pullable<T>
    encoding: StreamEncoding<T>
    server: ServerContext
  }) {
    this.#stream = options.stream
    this.#items = options.items
    this.#encoding = options.encoding
    this.#server = options.server
  }

  /**
   * Ends the items at once, even while they wait for the task's next event: told when the
   * connection closes, and called when the pump stops before their end.
   */
  closed(): void {
    this.#items.return().catch(ignore)
  }

  /** Writes what the items have, until they wait, end or fail, or the socket is full. */
  wake(): void {
    // Called from a microtask or a reaction: a throw here would end Node.
    try {
      this.#pump()
    } catch (error) {
      this.#abandon(error)
    }
  }

  #pump(): void {
    for (;;) {
      if (this.#stream.closed) {
        this.#stop()
        return
      }
      let step: Pulled<T>
      try {
        step = this.#items.pull(this)
      } catch (error) {
        this.#fail(error)
        return
      }
      if (step === PENDING) return
      if (step.done) {
        this.#stream.end()
        return
      }
      let sent: boolean
      try {
        const item = step.value
        const data = this.#encoding.encode(item)
        sent = this.#stream.send(item.id === undefined ? { data } : { id: item.id, data })
      } catch (error) {
        this.closed()
        this.#fail(error)
        return
      }
      if (!sent) {
        void this.#stream.drained(this.#server.stallMs).then((drained) => this.#drained(drained))
        return
      }
    }
  }

  #drained(drained: boolean): void {
    if (drained) this.wake()
    else this.#stop()
  }

  /** The items failed, or an item could not be written: one error frame, then the end. */
  #fail(error: unknown): void {
    const failure = toA2aFailure(error)
    if (failure.internal) this.#server.logger.error({ err: failure.internal }, 'A2A stream failed')
    this.#stream.send(this.#encoding.encodeError(failure))
    this.#stream.end()
  }

  /** Stopped before the items' end (the client went away, or stopped reading). */
  #stop(): void {
    this.closed()
    this.#stream.end()
  }

  /** What cannot happen (the writer or the items' return() threw): logged, and the response destroyed. */
  #abandon(error: unknown): void {
    this.#server.logger.error({ err: error }, 'A2A stream failed')
    this.#stream.request.socket.destroy()
  }
}
