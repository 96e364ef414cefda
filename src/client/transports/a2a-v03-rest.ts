import { streamResponseFromV03, taskFromV03 } from '../../dialects/a2a/wire/v03/rest-objects.ts'
import { sendRequestToV03 } from '../../dialects/a2a/wire/v03/rest-requests.ts'
import { V03_EXTENSIONS_HEADER } from '../../dialects/a2a/wire/v03/shapes.ts'
import { isObject } from '../../model/json.ts'
import type { A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { bareStatus, type ClientError, fromRestError } from '../errors.ts'
import type { JsonAnswer } from '../http.ts'
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
import { extensionHeaders, withEchoedExtensions } from './a2a-extensions.ts'
import { type A2aTransportOptions, streamsPerCard } from './a2a-options.ts'
import { fromV03JsonRpcError } from './a2a-v03-jsonrpc.ts'
import { RestChannel } from './rest-channel.ts'
import { eventJson } from './stream-frames.ts'

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
  readonly #channel: RestChannel

  constructor(options: A2aTransportOptions) {
    this.#interface = options.iface
    this.streaming = streamsPerCard(options.card)
    this.#channel = new RestChannel(options.http, {
      url: (path) => `${this.url.replace(/\/+$/, '')}/v1${path}`,
      headers: extensionHeaders(options.extensions ?? [], V03_EXTENSIONS_HEADER),
      contentType: 'application/json',
      accept: 'application/json',
      failure: failureOf,
    })
  }

  get url(): string {
    return this.#interface.url
  }

  async #sendMessage(request: Record<string, unknown>, call: CallOptions): Promise<RemoteTask> {
    const { result, headers } = await this.#channel.exchange(
      'POST',
      '/message:send',
      call,
      sendRequestToV03(request),
    )
    return withEchoedExtensions(
      decodeSendResult(streamResponseFromV03(result)),
      headers,
      V03_EXTENSIONS_HEADER,
    )
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
    const { result } = await this.#channel.exchange('GET', `/tasks/${encodeURIComponent(taskId)}`, call)
    return decodeTask(isObject(result) ? taskFromV03(result) : result)
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#channel.exchange(
      'POST',
      `/tasks/${encodeURIComponent(taskId)}:cancel`,
      call,
      {},
    )
    return decodeTask(isObject(result) ? taskFromV03(result) : result)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  /** `tasks/{id}:subscribe`: each event a bare 0.3 StreamResponse; an `error` event carries the 0.3 error object. */
  stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    return this.#channel.subscribe(`/tasks/${encodeURIComponent(taskId)}:subscribe`, options, (event) => {
      const body = eventJson(event.data, 'an A2A 0.3 HTTP+JSON')
      if (event.event === 'error') throw failureOf({ status: 500, body })
      return decodeStreamResponse(streamResponseFromV03(body))
    })
  }
}
