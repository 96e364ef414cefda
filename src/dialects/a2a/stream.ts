import type { FastifyReply } from 'fastify'
import type { FollowedEvent } from '../../engine/follow.ts'
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

/**
 * The Task first, then every later event as updates, until the task is terminal or waits for input.
 * The first item is made now, before the events fold on into the snapshot (the caller hands it
 * over: a task it read or created for this stream), so an open stream holds one copy.
 */
export const liveStream = (options: LiveStreamOptions): AsyncGenerator<StreamItem> => {
  const { snapshot, events, baseUrl } = options
  const first: StreamItem = {
    id: snapshot.version,
    response: { task: toA2aTask(snapshot, { baseUrl, historyLength: options.historyLength }) },
  }
  return firstThenUpdates(first, events, baseUrl)
}

async function* firstThenUpdates(
  first: StreamItem,
  events: AsyncIterable<FollowedEvent> | undefined,
  baseUrl: string,
): AsyncGenerator<StreamItem> {
  yield first
  if (events) yield* updates(events, baseUrl)
}

/**
 * Beyond the spec: a resumed subscription (Last-Event-ID) replays exactly the events after that
 * sequence, with no Task snapshot, so a client that kept its state misses nothing and sees nothing
 * twice; each update shows the task as it was at that event.
 */
export const resumedStream = (
  events: AsyncIterable<FollowedEvent>,
  baseUrl: string,
): AsyncGenerator<StreamItem> => updates(events, baseUrl)

export async function* updates(
  events: AsyncIterable<FollowedEvent>,
  baseUrl: string,
): AsyncGenerator<StreamItem> {
  for await (const { event, task } of events) {
    yield* streamItemsOf(event, task, baseUrl)
    if (event.kind === 'status' && endsStream(event.state)) return
  }
}

/** `T`: a 1.0 StreamItem, or a 0.3 one: anything with the sequence of the event it ends. */
export interface ServeStreamOptions<T extends { id?: number } = StreamItem> {
  reply: FastifyReply
  server: ServerContext
  items: AsyncIterable<T>
  /** The `data:` of an item in this binding's envelope (and version). */
  encode: (item: T) => string
  /** The frame reporting a failure after the stream has started. */
  encodeError: (failure: A2aFailure) => SseFrame
}

/**
 * Writes the items as SSE, `id:` being the task's event sequence. Everything that can fail before
 * the first event has already happened, so errors here are mid-stream: one error frame, then close.
 */
export const serveStream = async <T extends { id?: number }>(
  options: ServeStreamOptions<T>,
): Promise<void> => {
  const { reply, server, items, encode, encodeError } = options
  reply.hijack()
  const stream = new SseStream(reply.raw, server.heartbeats, () => ': ping\n\n')
  stream.open()
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
