import type { HeaderReader } from '../card-cache.ts'
import { ClientError } from '../errors.ts'
import { type HttpSettings, type JsonAnswer, requestJson } from '../http.ts'
import { openEventStream } from '../sse.ts'
import type { CallOptions, StreamFrame, StreamOptions, WireItem } from '../types.ts'
import { decodeFrames, streamSettings } from './stream-frames.ts'

/** An SSE event as the stream reader gives it. */
export interface RestEvent {
  id?: string | undefined
  event?: string | undefined
  data: string
}

/** What differs between the A2A versions' HTTP+JSON bindings; the verbs and paths are the same. */
export interface RestVersion {
  /** The URL of an operation's path: under the interface URL, with the version's prefix or tenant. */
  url: (path: string) => string
  /** Sent on every request (the version header, the extensions). */
  headers: Record<string, string>
  /** The media type of a request body and the one preferred in answers. */
  contentType: string
  accept: string
  /** The error a 4xx/5xx answer stands for (the version's error body, or the bare status). */
  failure: (answer: JsonAnswer) => ClientError
}

/** One HTTP+JSON interface: its JSON calls and its subscribe stream. */
export class RestChannel {
  readonly #http: HttpSettings
  readonly #version: RestVersion

  constructor(http: HttpSettings, version: RestVersion) {
    this.#http = http
    this.#version = version
  }

  /** A call's answer, with its headers (a message's answer echoes the activated extensions). */
  async exchange(
    method: string,
    path: string,
    call: CallOptions,
    body?: unknown,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const { url, headers, contentType, accept, failure } = this.#version
    const answer = await requestJson(this.#http, url(path), {
      method,
      headers: { accept, ...headers, ...(body !== undefined && { 'content-type': contentType }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...call,
    })
    if (answer.status < 200 || answer.status >= 300) throw failure(answer)
    if (answer.body === undefined && answer.text.trim() !== '') {
      throw new ClientError('PROTOCOL_ERROR', `${method} ${path}: the answer is not JSON`, {
        status: answer.status,
      })
    }
    return { result: answer.body, headers: answer.headers }
  }

  /**
   * A subscribe stream: POST as both versions' spec tables say, GET when the server only knows the
   * proto's verb (405). `decode` reads each event, throwing the version's error for an error event.
   */
  async subscribe(
    path: string,
    options: StreamOptions,
    decode: (event: RestEvent) => WireItem | undefined,
  ): Promise<AsyncIterable<StreamFrame>> {
    const { url, headers, contentType, failure } = this.#version
    const open = (method: 'POST' | 'GET') =>
      openEventStream(this.#http, url(path), {
        method,
        headers: { ...headers, ...(method === 'POST' && { 'content-type': contentType }) },
        ...(method === 'POST' && { body: '{}' }),
        ...streamSettings(options),
        failure,
      })
    try {
      return decodeFrames(await open('POST'), decode)
    } catch (error) {
      if (error instanceof ClientError && error.status === 405) return decodeFrames(await open('GET'), decode)
      throw error
    }
  }
}
