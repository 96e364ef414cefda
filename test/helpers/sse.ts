import { EventSourceParserStream } from 'eventsource-parser/stream'

export interface ReceivedEvent {
  id: string | undefined
  event: string | undefined
  data: string
}

/**
 * Opens an SSE stream and collects its events until the server closes it, `stopWhen` says so, or
 * `timeoutMs` passes. Comment lines (`: ping`) are not events and are counted in `comments`.
 */
export const readSse = async (
  url: string,
  options: {
    method?: string
    headers?: Record<string, string>
    body?: string
    stopWhen?: (event: ReceivedEvent, all: ReceivedEvent[]) => boolean
    timeoutMs?: number
  } = {},
): Promise<{
  status: number
  headers: Headers
  events: ReceivedEvent[]
  closedByServer: boolean
  body?: string
}> => {
  const controller = new AbortController()
  // A safety net for a stream that never ends; a passing test ends sooner (stopWhen, the server).
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 60_000)
  const init: RequestInit = {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    signal: controller.signal,
  }
  if (options.body !== undefined) init.body = options.body
  const response = await fetch(url, init)
  const events: ReceivedEvent[] = []
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    clearTimeout(timer)
    return {
      status: response.status,
      headers: response.headers,
      events,
      closedByServer: true,
      body: await response.text(),
    }
  }
  let closedByServer = false
  try {
    const reader = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) {
        closedByServer = true
        break
      }
      const event = { id: value.id, event: value.event, data: value.data }
      events.push(event)
      if (options.stopWhen?.(event, events)) {
        controller.abort()
        break
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error
  } finally {
    clearTimeout(timer)
  }
  return { status: response.status, headers: response.headers, events, closedByServer }
}
