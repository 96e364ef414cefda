import { Pool } from 'undici'

export interface SseEvent {
  event: string | undefined
  id: string | undefined
  /** The parsed JSON of the frame's data lines. */
  data: unknown
}

export interface JsonResponse {
  status: number
  body: unknown
}

/** Frames longer than this are a broken server, not a benchmark result. */
const MAX_FRAME_CHARS = 4 * 1024 * 1024

/** Parses one SSE frame (its lines, without the blank line that ends it); undefined for a comment. */
const parseFrame = (block: string): SseEvent | undefined => {
  let event: string | undefined
  let id: string | undefined
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id') id = value
  }
  if (data.length === 0) return undefined
  return { event, id, data: JSON.parse(data.join('\n')) }
}

/**
 * The load generator's HTTP client: one undici pool to the server under test, keep-alive, no
 * pipelining. Paths are relative to the base URL (which may carry a path prefix).
 */
export class Http {
  readonly #pool: Pool
  readonly #prefix: string

  /** `connections`: the pool size; null for one connection per concurrent request (streams). */
  constructor(base: string, connections: number | null) {
    const url = new URL(base)
    this.#prefix = url.pathname.replace(/\/+$/, '')
    this.#pool = new Pool(url.origin, {
      connections,
      pipelining: 1,
      // Streams may sit idle for a long time in the subscriber scenario.
      bodyTimeout: 0,
      headersTimeout: 60_000,
      keepAliveTimeout: 30_000,
    })
  }

  async json(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await this.#pool.request({
      method: method as 'GET',
      path: this.#prefix + path,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const text = await response.body.text()
    let parsed: unknown = text
    if (text !== '') {
      try {
        parsed = JSON.parse(text)
      } catch {
        // Left as text: the caller's check reports it.
      }
    }
    return { status: response.statusCode, body: parsed } satisfies JsonResponse
  }

  /**
   * Reads an SSE response to its end, calling `onEvent` for each frame; resolves with the HTTP
   * status once the server closes the stream. A non-200 answer is read as one JSON body.
   */
  async sse(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    onEvent: (event: SseEvent) => void,
    signal?: AbortSignal,
  ): Promise<number> {
    const response = await this.#pool.request({
      method: method as 'GET',
      path: this.#prefix + path,
      headers: {
        accept: 'text/event-stream',
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(signal && { signal }),
    })
    if (response.statusCode !== 200) {
      const text = await response.body.text()
      throw new Error(`stream answered ${response.statusCode}: ${text.slice(0, 300)}`)
    }
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true })
      if (buffer.includes('\r')) buffer = buffer.replace(/\r\n?/g, '\n')
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const frame = parseFrame(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (frame) onEvent(frame)
        end = buffer.indexOf('\n\n')
      }
      if (buffer.length > MAX_FRAME_CHARS) throw new Error('an SSE frame exceeds 4 MiB')
    }
    return response.statusCode
  }

  close(): Promise<void> {
    return this.#pool.destroy()
  }
}
