import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { Response } from 'undici'
import { ClientError } from './errors.ts'
import {
  type Exchange,
  type HttpSettings,
  type JsonAnswer,
  type RequestSpec,
  readText,
  send,
} from './http.ts'

/** One event or comment line is never allowed to grow past this (a hostile stream cannot exhaust memory). */
const MAX_EVENT_CHARS = 4 * 1024 * 1024

/**
 * The events of an SSE response, in order. Any byte (event, comment, ping) proves the connection
 * alive; `idleMs` without one means it is dead even if the socket says otherwise (a proxy that
 * stopped forwarding, a frozen server), and the read fails with TIMEOUT so the caller reconnects.
 * Ends the exchange however it stops.
 */
export async function* readEvents(
  response: Response,
  exchange: Exchange,
  options: { idleMs: number; what: string },
): AsyncGenerator<EventSourceMessage> {
  const body = response.body
  if (!body) {
    exchange.end()
    return
  }
  const queue: EventSourceMessage[] = []
  let parseError: Error | undefined
  const parser = createParser({
    onEvent: (event) => queue.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') parseError = error
    },
    maxBufferSize: MAX_EVENT_CHARS,
  })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let idleTimer: NodeJS.Timeout | undefined
  const stalled = new ClientError(
    'TIMEOUT',
    `${options.what}: no data for ${options.idleMs} ms; the stream is dead`,
  )
  try {
    for (;;) {
      const next = await new Promise<{ done: boolean; value?: Uint8Array }>((resolve, reject) => {
        idleTimer = setTimeout(() => {
          exchange.controller.abort(stalled)
          reject(stalled)
        }, options.idleMs)
        reader.read().then(resolve, reject)
      }).finally(() => clearTimeout(idleTimer))
      if (next.done) {
        parser.feed(decoder.decode())
        yield* queue.splice(0)
        return
      }
      parser.feed(decoder.decode(next.value!, { stream: true }))
      if (parseError) throw new ClientError('PROTOCOL_ERROR', `${options.what}: ${parseError.message}`)
      yield* queue.splice(0)
    }
  } catch (error) {
    throw exchange.failure(error, options.what)
  } finally {
    clearTimeout(idleTimer)
    // Leaving early (the consumer stopped, or an error): close the connection rather than drain it.
    if (!exchange.signal.aborted) exchange.controller.abort()
    try {
      reader.releaseLock()
    } catch {
      // A read still pending on the aborted body: the lock goes with the stream.
    }
    exchange.end()
  }
}

export interface EventStreamSpec extends RequestSpec {
  lastEventId?: string
  idleMs: number
  /** The error an answer that is not a stream stands for (the protocol's error body). */
  failure: (answer: JsonAnswer) => Error
}

/**
 * Opens an SSE request. A 200 `text/event-stream` answer becomes its events; anything else is an
 * error answer, read and turned into the protocol's error. The timeout covers the wait for the
 * head only: after that, silence is judged by `idleMs`.
 */
export const openEventStream = async (
  settings: HttpSettings,
  url: string,
  spec: EventStreamSpec,
): Promise<AsyncGenerator<EventSourceMessage>> => {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...spec.headers }
  if (spec.lastEventId !== undefined) headers['last-event-id'] = spec.lastEventId
  const what = `${spec.method ?? 'GET'} ${url}`
  const { response, exchange } = await send(settings, url, { ...spec, headers })
  if (
    response.status === 200 &&
    (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  ) {
    exchange.stopTimer()
    return readEvents(response, exchange, { idleMs: spec.idleMs, what })
  }
  let text: string
  try {
    text = await readText(response)
  } catch (error) {
    throw exchange.failure(error, what)
  } finally {
    exchange.end()
  }
  let body: unknown
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  throw spec.failure({ status: response.status, headers: response.headers, body, text })
}
