import type { TSchema } from '@sinclair/typebox'
import { fromV03SendResult, fromV03StreamEvent, fromV03Task } from '../../dialects/a2a/wire/v03/from-v03.ts'
import {
  V03_EXTENSIONS_HEADER,
  V03SendResult,
  V03StreamEvent,
  V03Task,
} from '../../dialects/a2a/wire/v03/shapes.ts'
import { toV03SendParams } from '../../dialects/a2a/wire/v03/to-v03.ts'
import { isObject } from '../../model/json.ts'
import { compileSchema } from '../../schema/json-schema.ts'
import type { A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { ClientError, fromJsonRpcError } from '../errors.ts'
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
import { JsonRpcChannel } from './jsonrpc-channel.ts'

/**
 * A 0.3 answer, checked against the 0.3 shape (shared with the server), or PROTOCOL_ERROR naming
 * what is wrong with it.
 */
const reader = <T>(schema: TSchema, what: string) => {
  const validate = compileSchema(schema)
  return (value: unknown): T => {
    const violations = validate(value, '')
    if (violations.length === 0) return value as T
    throw new ClientError(
      'PROTOCOL_ERROR',
      `the ${what} is not valid A2A 0.3: ${violations
        .slice(0, 3)
        .map((v) => v.description)
        .join('; ')}`,
      { details: { violations } },
    )
  }
}
const readSendResult = reader<V03SendResult>(V03SendResult, 'message/send result')
const readTask = reader<V03Task>(V03Task, 'Task')
const readEvent = reader<V03StreamEvent>(V03StreamEvent, 'stream event')

/**
 * A 0.3 error object as a ClientError. Its `data` is free-form; an object with a `reason` (ours,
 * and servers that mirror 1.0's ErrorInfo) is read as the ErrorInfo and field violations 1.0
 * carries in its details array, so both versions' errors get the same codes.
 */
export const fromV03JsonRpcError = (error: unknown, status: number, headers?: HeaderReader): ClientError => {
  if (!isObject(error) || !isObject(error.data) || typeof error.data.reason !== 'string')
    return fromJsonRpcError(isObject(error) ? { ...error, data: undefined } : error, status, headers)
  const { reason, fieldViolations, ...rest } = error.data
  const metadata = Object.fromEntries(
    Object.entries(rest).flatMap(([key, value]) => (typeof value === 'string' ? [[key, value]] : [])),
  )
  const details: object[] = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, metadata }]
  if (Array.isArray(fieldViolations))
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations })
  return fromJsonRpcError({ ...error, data: details }, status, headers)
}

const READS = new Set(['tasks/get'])

/**
 * The A2A 0.3 JSON-RPC binding (an agent that speaks only 0.3, or a 0.3 entry of a card): slash
 * methods, no A2A-Version header (absent means 0.3), X-A2A-Extensions. Requests are built by the
 * 1.0 codec and converted to 0.3; answers are checked against the 0.3 shapes, converted to 1.0
 * and decoded by the 1.0 codec, so both versions give the same RemoteTask. 0.3 has no ListTasks.
 */
export class V03JsonRpcTransport implements Transport {
  readonly kind = 'jsonrpc' as const
  readonly dialect = 'a2a' as const
  readonly a2aVersion = '0.3'
  readonly streaming: boolean
  readonly #interface: A2aInterface
  readonly #channel: JsonRpcChannel

  constructor(options: A2aTransportOptions) {
    this.#interface = options.iface
    this.streaming = streamsPerCard(options.card)
    this.#channel = new JsonRpcChannel(options.iface.url, options.http, {
      headers: extensionHeaders(options.extensions ?? [], V03_EXTENSIONS_HEADER),
      reads: READS,
      readError: fromV03JsonRpcError,
    })
  }

  get url(): string {
    return this.#interface.url
  }

  /** message/send: the 1.0 request (returnImmediately) as 0.3 params (blocking: false). */
  async #send(request: Record<string, unknown>, call: CallOptions): Promise<RemoteTask> {
    const params = toV03SendParams(request as unknown as Parameters<typeof toV03SendParams>[0])
    const { result, headers } = await this.#channel.exchange('message/send', params, call)
    const task = decodeSendResult(fromV03SendResult(readSendResult(result)))
    return withEchoedExtensions(task, headers, V03_EXTENSIONS_HEADER)
  }

  send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    return this.#send(sendMessageRequest(request), call)
  }

  provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    return this.#send(inputMessageRequest(task, payload), call)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#channel.exchange('tasks/get', { id: taskId }, call)
    return decodeTask(fromV03Task(readTask(result)))
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#channel.exchange('tasks/cancel', { id: taskId }, call)
    return decodeTask(fromV03Task(readTask(result)))
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  /** tasks/resubscribe: the Task, then its updates; Last-Event-ID resumes where our servers support it. */
  stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    return this.#channel.stream('tasks/resubscribe', { id: taskId }, options, (result) =>
      decodeStreamResponse(fromV03StreamEvent(readEvent(result))),
    )
  }
}
