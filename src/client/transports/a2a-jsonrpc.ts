import { encodeJsonRpcRequest, readJsonRpcResponse } from '../../dialects/a2a/wire/jsonrpc.ts'
import { A2A_VERSION } from '../../dialects/a2a/wire/shapes.ts'
import { toA2aState } from '../../dialects/a2a/wire/states.ts'
import type { A2aCard, A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { bareStatus, ClientError, fromJsonRpcError } from '../errors.ts'
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

/**
 * An answer that is not a JSON-RPC response: nothing (or something else) lives at this URL, so it
 * counts as unreachable when the status says the endpoint is missing or down.
 */
const notJsonRpc = (answer: JsonAnswer, url: string): ClientError =>
  bareStatus(answer.status, `${url} answered HTTP ${answer.status}, not JSON-RPC`, answer.headers)

const READS = new Set(['GetTask', 'ListTasks'])

/** The A2A 1.0 JSON-RPC binding: one POST endpoint, PascalCase methods, SSE for the two streams. */
export class JsonRpcTransport implements Transport {
  readonly kind = 'jsonrpc' as const
  readonly dialect = 'a2a' as const
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #http: HttpSettings
  readonly #extensions: Record<string, string>
  #nextId = 1

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

  /** The request envelope; an interface with a tenant puts it in every request message. */
  #envelope(method: string, params: Record<string, unknown>): string {
    const withTenant = this.#interface.tenant ? { ...params, tenant: this.#interface.tenant } : params
    return encodeJsonRpcRequest(this.#nextId++, method, withTenant)
  }

  #headers(accept: string): Record<string, string> {
    return { 'content-type': 'application/json', accept, 'a2a-version': A2A_VERSION, ...this.#extensions }
  }

  async #call(method: string, params: Record<string, unknown>, call: CallOptions): Promise<unknown> {
    return (await this.#exchange(method, params, call)).result
  }

  /** A call, with the answer's headers (a message's answer echoes the activated extensions). */
  async #exchange(
    method: string,
    params: Record<string, unknown>,
    call: CallOptions,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const answer = await requestJson(this.#http, this.url, {
      method: 'POST',
      headers: this.#headers('application/json'),
      body: this.#envelope(method, params),
      // Reads are safe to repeat (a POST only because JSON-RPC has one verb).
      idempotent: READS.has(method),
      ...call,
    })
    const response = readJsonRpcResponse(answer.body)
    if (response && 'error' in response) throw fromJsonRpcError(response.error, answer.status, answer.headers)
    if (!response) {
      if (answer.status < 200 || answer.status >= 300) throw notJsonRpc(answer, this.url)
      throw new ClientError('PROTOCOL_ERROR', `${method}: the answer is not a JSON-RPC response`, {
        status: answer.status,
      })
    }
    return { result: response.result, headers: answer.headers }
  }

  async send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    const { result, headers } = await this.#exchange('SendMessage', sendMessageRequest(request), call)
    return withEchoedExtensions(decodeSendResult(result), headers)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask(await this.#call('GetTask', { id: taskId }, call))
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask(await this.#call('CancelTask', { id: taskId }, call))
  }

  async provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    const { result, headers } = await this.#exchange('SendMessage', inputMessageRequest(task, payload), call)
    return withEchoedExtensions(decodeSendResult(result), headers)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  async list(query: ListQuery, call: CallOptions): Promise<TaskPage> {
    const params: Record<string, unknown> = {}
    if (query.state) params.status = toA2aState(query.state)
    if (query.contextId) params.contextId = query.contextId
    if (query.pageSize !== undefined) params.pageSize = query.pageSize
    if (query.pageToken) params.pageToken = query.pageToken
    if (query.includeArtifacts) params.includeArtifacts = true
    return decodeTaskPage(await this.#call('ListTasks', params, call))
  }

  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const events = await openEventStream(this.#http, this.url, {
      method: 'POST',
      headers: this.#headers('text/event-stream'),
      body: this.#envelope('SubscribeToTask', { id: taskId }),
      signal: options.signal,
      idleMs: options.idleMs,
      ...(options.lastEventId !== undefined && { lastEventId: options.lastEventId }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      failure: (answer) => {
        const response = readJsonRpcResponse(answer.body)
        return response && 'error' in response
          ? fromJsonRpcError(response.error, answer.status, answer.headers)
          : notJsonRpc(answer, this.url)
      },
    })
    return frames(events)
  }
}

/** Each SSE event is a JSON-RPC response whose result is a StreamResponse; an error ends the stream. */
async function* frames(
  events: AsyncIterable<{ id?: string | undefined; data: string }>,
): AsyncGenerator<StreamFrame> {
  for await (const event of events) {
    let body: unknown
    try {
      body = JSON.parse(event.data)
    } catch {
      throw new ClientError('PROTOCOL_ERROR', 'a JSON-RPC stream event is not JSON')
    }
    const response = readJsonRpcResponse(body)
    if (response && 'error' in response) throw fromJsonRpcError(response.error, 200)
    if (!response) {
      throw new ClientError('PROTOCOL_ERROR', 'a JSON-RPC stream event is not a JSON-RPC response')
    }
    const item = decodeStreamResponse(response.result)
    if (item) yield event.id === undefined ? { item } : { id: event.id, item }
  }
}
