import { A2A_VERSION } from '../../dialects/a2a/wire/shapes.ts'
import { toA2aState } from '../../dialects/a2a/wire/states.ts'
import type { A2aInterface } from '../card.ts'
import { fromJsonRpcError } from '../errors.ts'
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
import { JsonRpcChannel } from './jsonrpc-channel.ts'

const READS = new Set(['GetTask', 'ListTasks'])

/** The A2A 1.0 JSON-RPC binding: one POST endpoint, PascalCase methods, SSE for the two streams. */
export class JsonRpcTransport implements Transport {
  readonly kind = 'jsonrpc' as const
  readonly dialect = 'a2a' as const
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #channel: JsonRpcChannel

  constructor(options: A2aTransportOptions) {
    this.#interface = options.iface
    this.streaming = streamsPerCard(options.card)
    this.#channel = new JsonRpcChannel(options.iface.url, options.http, {
      headers: { 'a2a-version': A2A_VERSION, ...extensionHeaders(options.extensions ?? []) },
      reads: READS,
      readError: fromJsonRpcError,
    })
  }

  get url(): string {
    return this.#interface.url
  }

  /** An interface with a tenant puts it in every request message. */
  #params(params: Record<string, unknown>): Record<string, unknown> {
    return this.#interface.tenant ? { ...params, tenant: this.#interface.tenant } : params
  }

  async #call(method: string, params: Record<string, unknown>, call: CallOptions): Promise<unknown> {
    return (await this.#exchange(method, params, call)).result
  }

  #exchange(method: string, params: Record<string, unknown>, call: CallOptions) {
    return this.#channel.exchange(method, this.#params(params), call)
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

  stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    return this.#channel.stream(
      'SubscribeToTask',
      this.#params({ id: taskId }),
      options,
      decodeStreamResponse,
    )
  }
}
