import { formatExtensions, parseExtensions } from '../../dialects/a2a/wire/service-parameters.ts'
import { streamResponseFromV03, taskFromV03 } from '../../dialects/a2a/wire/v03/rest-objects.ts'
import { sendRequestToV03 } from '../../dialects/a2a/wire/v03/rest-requests.ts'
import { V03_EXTENSIONS_HEADER } from '../../dialects/a2a/wire/v03/shapes.ts'
import { isObject } from '../../model/json.ts'
import type { A2aCard, A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { bareStatus, ClientError, fromRestError } from '../errors.ts'
import { type HttpSettings, type JsonAnswer, requestJson } from '../http.ts'
import { openEventStream } from '../sse.ts'
import type {
  CallOptions,
  RemoteArtifact,
  RemoteTask,
  SendPayload,
  SendRequest,
  StreamFrame,
  StreamOptions,
  Transport,
} from '../types.ts'
import {
  decodeSendResult,
  decodeStreamResponse,
  decodeTask,
  inputMessageRequest,
  sendMessageRequest,
} from './a2a-codec.ts'
import { fromV03JsonRpcError } from './a2a-v03-jsonrpc.ts'

/** 0.3 names the extensions header with the `X-` prefix. */
const EXTENSIONS_HEADER = V03_EXTENSIONS_HEADER.toLowerCase()

/**
 * A 0.3 REST error: the 0.3 JSON-RPC error object, unwrapped, as sdk 0.3.14 and our server write
 * it (`{code, message, data}`); a google.rpc.Status (`{error}`, the 1.0 shape) is read too;
 * anything else is the status.
 */
const failureOf = (answer: Pick<JsonAnswer, 'body' | 'status'> & { headers?: HeaderReader }): ClientError => {
  const { body, status, headers } = answer
  if (isObject(body) && typeof body.code === 'number') return fromV03JsonRpcError(body, status, headers)
  if (isObject(body) && isObject(body.error)) return fromRestError(body, status, headers)
  return bareStatus(status, undefined, headers)
}

const echoedExtensions = (task: RemoteTask, headers: HeaderReader): RemoteTask => {
  const echoed = parseExtensions(headers.get(EXTENSIONS_HEADER))
  if (echoed.length > 0) task.extensions = echoed
  return task
}

/**
 * The A2A 0.3 HTTP+JSON binding (`/v1/…` under the interface URL; the 0.3 proto's ProtoJSON
 * bodies). Requests are built as for 1.0 and converted (wire/v03/rest-*.ts); answers are
 * converted to 1.0 and decoded by the 1.0 codec. 0.3 has no A2A-Version header (its absence is
 * what says 0.3), no tenants, and no ListTasks on this binding for our client to offer.
 */
export class RestV03Transport implements Transport {
  readonly kind = 'rest' as const
  readonly dialect = 'a2a' as const
  readonly a2aVersion = '0.3'
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #http: HttpSettings
  readonly #extensions: Record<string, string>

  constructor(options: {
    iface: A2aInterface
    card: A2aCard
    http: HttpSettings
    /** Extensions to activate on every request (X-A2A-Extensions). */
    extensions?: readonly string[]
  }) {
    this.#interface = options.iface
    this.#http = options.http
    this.streaming = options.card.capabilities.streaming === true
    const extensions = options.extensions ?? []
    this.#extensions = extensions.length > 0 ? { [EXTENSIONS_HEADER]: formatExtensions(extensions) } : {}
  }

  get url(): string {
    return this.#interface.url
  }

  #path(path: string): string {
    return `${this.url.replace(/\/+$/, '')}/v1${path}`
  }

  async #exchange(
    method: string,
    path: string,
    call: CallOptions,
    body?: unknown,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const answer = await requestJson(this.#http, this.#path(path), {
      method,
      headers: {
        accept: 'application/json',
        ...this.#extensions,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...call,
    })
    if (answer.status < 200 || answer.status >= 300) throw failureOf(answer)
    if (answer.body === undefined && answer.text.trim() !== '') {
      throw new ClientError('PROTOCOL_ERROR', `${method} ${path}: the answer is not JSON`, {
        status: answer.status,
      })
    }
    return { result: answer.body, headers: answer.headers }
  }

  async #sendMessage(request: Record<string, unknown>, call: CallOptions): Promise<RemoteTask> {
    const { result, headers } = await this.#exchange('POST', '/message:send', call, sendRequestToV03(request))
    return echoedExtensions(decodeSendResult(streamResponseFromV03(result)), headers)
  }

  send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    return this.#sendMessage(sendMessageRequest(request), call)
  }

  provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    return this.#sendMessage(inputMessageRequest(task, payload), call)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#exchange('GET', `/tasks/${encodeURIComponent(taskId)}`, call)
    return decodeTask(isObject(result) ? taskFromV03(result) : result)
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#exchange('POST', `/tasks/${encodeURIComponent(taskId)}:cancel`, call, {})
    return decodeTask(isObject(result) ? taskFromV03(result) : result)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  /** `tasks/{id}:subscribe`: POST as the 0.3 spec's table says, GET (the proto's rule) on a 405. */
  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const open = (method: 'POST' | 'GET') =>
      openEventStream(this.#http, this.#path(`/tasks/${encodeURIComponent(taskId)}:subscribe`), {
        method,
        headers: { ...this.#extensions, ...(method === 'POST' && { 'content-type': 'application/json' }) },
        ...(method === 'POST' && { body: '{}' }),
        signal: options.signal,
        idleMs: options.idleMs,
        ...(options.lastEventId !== undefined && { lastEventId: options.lastEventId }),
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        failure: failureOf,
      })
    try {
      return frames(await open('POST'))
    } catch (error) {
      if (error instanceof ClientError && error.status === 405) return frames(await open('GET'))
      throw error
    }
  }
}

/** Each SSE event is a bare 0.3 StreamResponse; an `error` event carries the 0.3 error object. */
async function* frames(
  events: AsyncIterable<{ id?: string | undefined; event?: string | undefined; data: string }>,
): AsyncGenerator<StreamFrame> {
  for await (const event of events) {
    let body: unknown
    try {
      body = JSON.parse(event.data)
    } catch {
      throw new ClientError('PROTOCOL_ERROR', 'an A2A 0.3 HTTP+JSON stream event is not JSON')
    }
    if (event.event === 'error') throw failureOf({ status: 500, body })
    const item = decodeStreamResponse(streamResponseFromV03(body))
    if (item) yield event.id === undefined ? { item } : { id: event.id, item }
  }
}
