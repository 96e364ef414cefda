import { A2A_CONTENT_TYPE, A2A_VERSION } from '../../dialects/a2a/wire/shapes.ts'
import { toA2aState } from '../../dialects/a2a/wire/states.ts'
import type { A2aCard, A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { ClientError, fromRestError } from '../errors.ts'
import { type HttpSettings, type JsonAnswer, requestJson } from '../http.ts'
import { openEventStream } from '../sse.ts'
import type {
  CallOptions,
  ListQuery,
  RemoteArtifact,
  RemoteTask,
  SendPayload,
  SendRequest,
  StreamFrame,
  StreamOptions,
  TaskPage,
  Transport,
} from '../types.ts'
import {
  decodeSendResult,
  decodeStreamResponse,
  decodeTask,
  decodeTaskPage,
  inputMessageRequest,
  sendMessageRequest,
} from './a2a-codec.ts'
import { extensionHeaders, withEchoedExtensions } from './a2a-extensions.ts'

/** A 4xx/5xx with no google.rpc.Status body means nothing A2A answered: the endpoint is missing or down. */
const failureOf = (answer: JsonAnswer): ClientError =>
  fromRestError(answer.body, answer.status, answer.headers)

/** The A2A 1.0 HTTP+JSON binding (digest §4.3): paths under the interface URL, a tenant as a path prefix. */
export class RestTransport implements Transport {
  readonly kind = 'rest' as const
  readonly dialect = 'a2a' as const
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #http: HttpSettings
  readonly #extensions: Record<string, string>

  constructor(options: {
    iface: A2aInterface
    card: A2aCard
    http: HttpSettings
    /** A2A-Extensions to activate on every request. */
    extensions?: readonly string[]
  }) {
    this.#interface = options.iface
    this.#http = options.http
    this.streaming = options.card.capabilities.streaming === true
    this.#extensions = extensionHeaders(options.extensions ?? [])
  }

  get url(): string {
    return this.#interface.url
  }

  #path(path: string): string {
    const base = this.url.replace(/\/+$/, '')
    const tenant = this.#interface.tenant ? `/${encodeURIComponent(this.#interface.tenant)}` : ''
    return `${base}${tenant}${path}`
  }

  async #call(method: string, path: string, call: CallOptions, body?: unknown): Promise<unknown> {
    return (await this.#exchange(method, path, call, body)).result
  }

  /** A call, with the answer's headers (a message's answer echoes the activated extensions). */
  async #exchange(
    method: string,
    path: string,
    call: CallOptions,
    body?: unknown,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const answer = await requestJson(this.#http, this.#path(path), {
      method,
      headers: {
        accept: `${A2A_CONTENT_TYPE}, application/json`,
        'a2a-version': A2A_VERSION,
        ...this.#extensions,
        ...(body !== undefined && { 'content-type': A2A_CONTENT_TYPE }),
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

  async send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    const { result, headers } = await this.#exchange(
      'POST',
      '/message:send',
      call,
      sendMessageRequest(request),
    )
    return withEchoedExtensions(decodeSendResult(result), headers)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask(await this.#call('GET', `/tasks/${encodeURIComponent(taskId)}`, call))
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask(await this.#call('POST', `/tasks/${encodeURIComponent(taskId)}:cancel`, call, {}))
  }

  async provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    const { result, headers } = await this.#exchange(
      'POST',
      '/message:send',
      call,
      inputMessageRequest(task, payload),
    )
    return withEchoedExtensions(decodeSendResult(result), headers)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  async list(query: ListQuery, call: CallOptions): Promise<TaskPage> {
    const params = new URLSearchParams()
    if (query.state) params.set('status', toA2aState(query.state))
    if (query.contextId) params.set('contextId', query.contextId)
    if (query.pageSize !== undefined) params.set('pageSize', String(query.pageSize))
    if (query.pageToken) params.set('pageToken', query.pageToken)
    if (query.includeArtifacts) params.set('includeArtifacts', 'true')
    const search = params.size > 0 ? `?${params}` : ''
    return decodeTaskPage(await this.#call('GET', `/tasks${search}`, call))
  }

  /** SubscribeToTask: POST as the spec says, GET when the server only knows the proto's verb (405). */
  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const open = (method: 'POST' | 'GET') =>
      openEventStream(this.#http, this.#path(`/tasks/${encodeURIComponent(taskId)}:subscribe`), {
        method,
        headers: {
          'a2a-version': A2A_VERSION,
          ...this.#extensions,
          ...(method === 'POST' && { 'content-type': A2A_CONTENT_TYPE }),
        },
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

/** Each SSE event is a bare StreamResponse, or `{ error: google.rpc.Status }` when the stream fails. */
async function* frames(
  events: AsyncIterable<{ id?: string | undefined; data: string }>,
): AsyncGenerator<StreamFrame> {
  for await (const event of events) {
    let body: unknown
    try {
      body = JSON.parse(event.data)
    } catch {
      throw new ClientError('PROTOCOL_ERROR', 'an HTTP+JSON stream event is not JSON')
    }
    if (typeof body === 'object' && body !== null && 'error' in body) throw fromRestError(body, 500)
    const item = decodeStreamResponse(body)
    if (item) yield event.id === undefined ? { item } : { id: event.id, item }
  }
}
