import { ClientError } from '../errors.ts'
import type { StreamFrame, StreamOptions, WireItem } from '../types.ts'

/** The part of an event-stream request every transport takes from the caller's stream options. */
export const streamSettings = (options: StreamOptions) => ({
  signal: options.signal,
  idleMs: options.idleMs,
  ...(options.lastEventId !== undefined && { lastEventId: options.lastEventId }),
  ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
})

/**
 * The frames of an SSE stream: each event read by the binding's `decode`, which throws the
 * protocol's error for an error event and gives undefined for an event that carries no item.
 */
export async function* decodeFrames<E extends { id?: string | undefined }>(
  events: AsyncIterable<E>,
  decode: (event: E) => WireItem | undefined,
): AsyncGenerator<StreamFrame> {
  for await (const event of events) {
    const item = decode(event)
    if (item) yield event.id === undefined ? { item } : { id: event.id, item }
  }
}

/** An event's data as JSON, or PROTOCOL_ERROR naming the binding (`what`) whose event it is. */
export const eventJson = (data: string, what: string): unknown => {
  try {
    return JSON.parse(data)
  } catch {
    throw new ClientError('PROTOCOL_ERROR', `${what} stream event is not JSON`)
  }
}
