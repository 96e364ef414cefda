import { A2A_CONTENT_TYPE, A2A_VERSION } from '../../dialects/a2a/wire/shapes.ts'
import { toA2aState } from '../../dialects/a2a/wire/states.ts'
import type { A2aInterface } from '../card.ts'
import { fromRestError } from '../errors.ts'
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
import { type A2aTransportOptions, streamsPerCard } from './a2a-options.ts'
import { RestChannel } from './rest-channel.ts'
import { eventJson } from './stream-frames.ts'

/** The A2A 1.0 HTTP+JSON binding (digest §4.3): paths under the interface URL, a tenant as a path prefix. */
export class RestTransport implements Transport {
  readonly kind = 'rest' as const
  readonly dialect = 'a2a' as const
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #channel: RestChannel

  constructor(options: A2aTransportOptions) {
    this.#interface = options.iface
    this.streaming = streamsPerCard(options.card)
    this.#channel = new RestChannel(options.http, {
      url: (path) => this.#path(path),
      headers: { 'a2a-version': A2A_VERSION, ...extensionHeaders(options.extensions ?? []) },
      contentType: A2A_CONTENT_TYPE,
      accept: `${A2A_CONTENT_TYPE}, application/json`,
      failure: (answer) => fromRestError(answer.body, answer.status, answer.headers),
    })
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
    return (await this.#channel.exchange(method, path, call, body)).result
  }

  async send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    const { result, headers } = await this.#channel.exchange(
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
    const { result, headers } = await this.#channel.exchange(
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

  /** SubscribeToTask; a failed stream's event is `{ error: google.rpc.Status }`. */
  stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    return this.#channel.subscribe(`/tasks/${encodeURIComponent(taskId)}:subscribe`, options, (event) => {
      const body = eventJson(event.data, 'an HTTP+JSON')
      if (typeof body === 'object' && body !== null && 'error' in body) throw fromRestError(body, 500)
      return decodeStreamResponse(body)
    })
  }
}
