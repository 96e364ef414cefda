import { once } from 'node:events'
import { fromJson, type JsonValue } from '@bufbuild/protobuf'
import { Metadata, type ServerWritableStream, status } from '@grpc/grpc-js'
import { SwitchboardError } from '../../../model/errors.ts'
import type { ServerContext } from '../../../web/context.ts'
import { StreamResponseSchema } from '../wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { EVENT_SEQ_KEY, GRPC_METADATA } from '../wire/grpc-service.ts'
import type { StreamItem } from '../wire/shapes.ts'
import { toGrpcError } from './errors.ts'

/** `last-event-id`: the sequence of the last event the client holds (undefined when absent). */
export const lastEventIdOf = (value: string | string[] | undefined): number | undefined => {
  const sent = [value].flat()[0]
  if (sent === undefined || sent === '') return undefined
  const seq = Number(sent)
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new SwitchboardError(
      'INVALID_REQUEST',
      `last-event-id must be a non-negative integer (an event sequence), got "${sent.slice(0, 40)}"`,
    )
  return seq
}

/**
 * The item as ProtoJSON, the update that ends an event carrying that event's sequence in its
 * metadata (EVENT_SEQ_KEY): what a client resumes after. A Task or Message has no such key.
 */
const withEventSeq = (item: StreamItem): JsonValue => {
  const { response } = item
  if (item.id === undefined) return response as JsonValue
  if ('statusUpdate' in response) {
    const update = response.statusUpdate
    return {
      statusUpdate: { ...update, metadata: { ...update.metadata, [EVENT_SEQ_KEY]: item.id } },
    } as JsonValue
  }
  if ('artifactUpdate' in response) {
    const update = response.artifactUpdate
    return {
      artifactUpdate: { ...update, metadata: { ...update.metadata, [EVENT_SEQ_KEY]: item.id } },
    } as JsonValue
  }
  return response as JsonValue
}

/**
 * Writes a stream's items as StreamResponse messages. The initial metadata goes with the first
 * item, carrying the event sequence of the Task snapshot when the stream starts with one
 * (`switchboard-event-seq`), or at once when the stream is a resumed one (no snapshot). The call's
 * cancellation or deadline aborts `items` (their signal) and so ends the loop; an error after the
 * stream started ends it with that error's status.
 */
export const writeStream = async (options: {
  call: ServerWritableStream<unknown, unknown>
  items: AsyncIterable<StreamItem>
  initial: Metadata
  /** A resumed stream has no snapshot: its initial metadata goes out before it waits for events. */
  resumed: boolean
  server: ServerContext
}): Promise<void> => {
  const { call, items, initial, server } = options
  let headersSent = false
  const sendHeaders = (first?: StreamItem) => {
    if (first?.id !== undefined && 'task' in first.response)
      initial.set(GRPC_METADATA.eventSeq, String(first.id))
    call.sendMetadata(initial)
    headersSent = true
  }
  if (options.resumed) sendHeaders()
  try {
    for await (const item of items) {
      if (call.cancelled) break
      if (!headersSent) sendHeaders(item)
      const sent = call.write(fromJson(StreamResponseSchema, withEventSeq(item)))
      if (!sent && !(await drained(call, server.stallMs))) {
        call.emit('error', {
          code: status.UNAVAILABLE,
          details: `the client read nothing for ${server.stallMs} ms`,
          metadata: new Metadata(),
        })
        return
      }
    }
    if (call.cancelled) return
    if (!headersSent) sendHeaders()
    call.end()
  } catch (error) {
    if (!call.cancelled) call.emit('error', toGrpcError(error, server.logger))
  }
}

/** Whether the backpressured call drained within `stallMs` (false when cancelled or stalled). */
const drained = async (call: ServerWritableStream<unknown, unknown>, stallMs: number): Promise<boolean> => {
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(), stallMs)
  const { signal } = stop
  try {
    return await Promise.race([
      once(call, 'drain', { signal }).then(
        () => true,
        () => false,
      ),
      once(call, 'cancelled', { signal }).then(
        () => false,
        () => false,
      ),
    ])
  } finally {
    clearTimeout(timer)
    stop.abort()
  }
}
