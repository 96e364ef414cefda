import { encodeJsonRpcRequest, readJsonRpcResponse } from '../../dialects/a2a/wire/jsonrpc.ts'
import type { JsonObject } from '../../model/events.ts'
import type { HeaderReader } from '../card-cache.ts'
import { bareStatus, ClientError } from '../errors.ts'
import { type HttpSettings, type JsonAnswer, requestJson } from '../http.ts'
import { openEventStream } from '../sse.ts'
import type { CallOptions, StreamFrame, StreamOptions, WireItem } from '../types.ts'
import { decodeFrames, eventJson, streamSettings } from './stream-frames.ts'

/** What differs between the A2A versions' JSON-RPC bindings; the envelope and the POST are the same. */
export interface JsonRpcVersion {
  /** Sent on every request besides content-type and accept (the version header, the extensions). */
  headers: Record<string, string>
  /** The methods that only read, safe to repeat (a POST only because JSON-RPC has one verb). */
  reads: ReadonlySet<string>
  /** The version's error object as a ClientError. */
  readError: (error: unknown, status: number, headers?: HeaderReader) => ClientError
}

/**
 * An answer that is not a JSON-RPC response: nothing (or something else) lives at this URL, so it
 * counts as unreachable when the status says the endpoint is missing or down.
 */
const notJsonRpc = (answer: JsonAnswer, url: string): ClientError =>
  bareStatus(answer.status, `${url} answered HTTP ${answer.status}, not JSON-RPC`, answer.headers)

/** One JSON-RPC endpoint: numbered requests, their answers or errors, and the SSE streams. */
export class JsonRpcChannel {
  readonly #url: string
  readonly #http: HttpSettings
  readonly #version: JsonRpcVersion
  #nextId = 1

  constructor(url: string, http: HttpSettings, version: JsonRpcVersion) {
    this.#url = url
    this.#http = http
    this.#version = version
  }

  #headers(accept: string): Record<string, string> {
    return { 'content-type': 'application/json', accept, ...this.#version.headers }
  }

  #body(method: string, params: object): string {
    return encodeJsonRpcRequest(this.#nextId++, method, params as JsonObject)
  }

  /** A call's result, with the answer's headers (a message's answer echoes the activated extensions). */
  async exchange(
    method: string,
    params: object,
    call: CallOptions,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const answer = await requestJson(this.#http, this.#url, {
      method: 'POST',
      headers: this.#headers('application/json'),
      body: this.#body(method, params),
      idempotent: this.#version.reads.has(method),
      ...call,
    })
    const response = readJsonRpcResponse(answer.body)
    if (response && 'error' in response)
      throw this.#version.readError(response.error, answer.status, answer.headers)
    if (!response) {
      if (answer.status < 200 || answer.status >= 300) throw notJsonRpc(answer, this.#url)
      throw new ClientError('PROTOCOL_ERROR', `${method}: the answer is not a JSON-RPC response`, {
        status: answer.status,
      })
    }
    return { result: response.result, headers: answer.headers }
  }

  /** A streaming method: each SSE event is a JSON-RPC response whose result `decode` reads; an error ends it. */
  async stream(
    method: string,
    params: object,
    options: StreamOptions,
    decode: (result: unknown) => WireItem | undefined,
  ): Promise<AsyncIterable<StreamFrame>> {
    const { readError } = this.#version
    const events = await openEventStream(this.#http, this.#url, {
      method: 'POST',
      headers: this.#headers('text/event-stream'),
      body: this.#body(method, params),
      ...streamSettings(options),
      failure: (answer) => {
        const response = readJsonRpcResponse(answer.body)
        return response && 'error' in response
          ? readError(response.error, answer.status, answer.headers)
          : notJsonRpc(answer, this.#url)
      },
    })
    return decodeFrames(events, (event) => {
      const response = readJsonRpcResponse(eventJson(event.data, 'a JSON-RPC'))
      if (response && 'error' in response) throw readError(response.error, 200)
      if (!response)
        throw new ClientError('PROTOCOL_ERROR', 'a JSON-RPC stream event is not a JSON-RPC response')
      return decode(response.result)
    })
  }
}
