import type { FastifyReply } from 'fastify'
import { DONE, type FollowedEvent } from '../../engine/follow.ts'
import { isTerminal, type TaskState } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { ServerContext } from '../../web/context.ts'
import { type SseFrame, SseStream } from '../../web/sse.ts'
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
  events: AsyncIterable<FollowedEvent> | undefined
  baseUrl: string
  historyLength?: number | undefined
}

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
export const updates = (events: AsyncIterable<FollowedEvent>, baseUrl: string): StreamItems =>
  new UpdateItems({ events, baseUrl })

/**
 * The items of followed events (after `first`, when given) until the task is terminal or waits for
 * input. An iterator object, not an async generator, for the reason the engine's TaskFollower is
 * one: an open stream waits in it, and each suspended generator layer costs memory per stream.
 */
class UpdateItems implements StreamItems {
  #first: StreamItem | undefined
  readonly #events: AsyncIterator<FollowedEvent> | undefined
  readonly #baseUrl: string
  #items: StreamItem[] = []
  #at = 0
  /** The last event was read (or the consumer stopped): what is queued goes out, then done. */
  #ended = false

  constructor(options: {
    first?: StreamItem
    events: AsyncIterable<FollowedEvent> | undefined
    baseUrl: string
  }) {
    this.#first = options.first
    this.#events = options.events?.[Symbol.asyncIterator]()
    this.#baseUrl = options.baseUrl
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<StreamItem, undefined>> {
    const first = this.#first
    if (first) {
      this.#first = undefined
      return Promise.resolve({ done: false, value: first })
    }
    if (this.#at < this.#items.length)
      return Promise.resolve({ done: false, value: this.#items[this.#at++]! })
    if (this.#ended || !this.#events) return this.return()
    return this.#events.next().then((result) => {
      if (result.done) {
        this.#ended = true
        return DONE
      }
      const { event, task } = result.value
      this.#items = streamItemsOf(event, task, this.#baseUrl)
      this.#at = 0
      if (event.kind === 'status' && endsStream(event.state)) this.#ended = true
      return this.next()
    })
  }

  /** Stops following the task (at once, even while a `next()` waits); nothing more is served. */
  async return(): Promise<IteratorResult<StreamItem, undefined>> {
    this.#ended = true
    this.#first = undefined
    this.#items = []
    await this.#events?.return?.()
    return DONE
  }
}

/** `T`: a 1.0 StreamItem, or a 0.3 one: anything with the sequence of the event it ends. */
export interface ServeStreamOptions<T extends { id?: number } = StreamItem> {
  reply: FastifyReply
  server: ServerContext
  /** An iterator (iterable as itself), so that the one the loop reads is the one a disconnect ends. */
  items: AsyncIterableIterator<T>
  /**
   * The `data:` of an item in this binding's envelope (and version). Written as methods where they
   * are made per stream: under tsx, which keeps names, a named arrow costs 256 bytes more for as
   * long as the stream is open.
   */
  encode: (item: T) => string
  /** The frame reporting a failure after the stream has started. */
  encodeError: (failure: A2aFailure) => SseFrame
}

const pingComment = (): string => ': ping\n\n'
/** A return() that fails has failed the stream's own next() already: the loop below reports it. */
const ignore = (): void => {}

/**
 * Writes the items as SSE, `id:` being the task's event sequence. Everything that can fail before
 * the first event has already happened, so errors here are mid-stream: one error frame, then close.
 */
export const serveStream = async <T extends { id?: number }>(
  options: ServeStreamOptions<T>,
): Promise<void> => {
  const { reply, server, items, encode, encodeError } = options
  reply.hijack()
  const stream = new SseStream(reply.raw, server.heartbeats, pingComment)
  // A client that goes away ends the items at once, even while they wait for the task's next event.
  stream.open({ onClose: () => void items.return?.().catch(ignore) })
  // The loop of pipeFrames, without an async generator between the items and the socket: one
  // fewer suspended frame per open stream and one fewer promise per event.
  try {
    for await (const item of items) {
      if (stream.closed) break
      const data = encode(item)
      const sent = stream.send(item.id === undefined ? { data } : { id: item.id, data })
      if (!sent && !(await stream.drained(server.stallMs))) break
    }
  } catch (error) {
    const failure = toA2aFailure(error)
    if (failure.internal) server.logger.error({ err: failure.internal }, 'A2A stream failed')
    stream.send(encodeError(failure))
  } finally {
    stream.end()
  }
}
