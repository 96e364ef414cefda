import type { TSchema } from '@sinclair/typebox'
import { encodeJsonRpcRequest, readJsonRpcResponse } from '../../dialects/a2a/wire/jsonrpc.ts'
import { formatExtensions, parseExtensions } from '../../dialects/a2a/wire/service-parameters.ts'
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
import type { A2aCard, A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { bareStatus, ClientError, fromJsonRpcError } from '../errors.ts'
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
      `${what} is not a valid A2A 0.3 ${what}: ${violations
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

const notJsonRpc = (answer: JsonAnswer, url: string): ClientError =>
  bareStatus(answer.status, `${url} answered HTTP ${answer.status}, not JSON-RPC`, answer.headers)

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
  readonly #http: HttpSettings
  readonly #extensions: Record<string, string>
  #nextId = 1

  /** The same options as the 1.0 transports; an interface's `tenant` has no 0.3 counterpart. */
  constructor(options: {
    iface: A2aInterface
    card: A2aCard
    http: HttpSettings
    extensions?: readonly string[]
  }) {
    this.#interface = options.iface
    this.#http = options.http
    this.streaming = options.card.capabilities.streaming === true
    const extensions = options.extensions ?? []
    this.#extensions =
      extensions.length > 0 ? { [V03_EXTENSIONS_HEADER.toLowerCase()]: formatExtensions(extensions) } : {}
  }

  get url(): string {
    return this.#interface.url
  }

  #headers(accept: string): Record<string, string> {
    return { 'content-type': 'application/json', accept, ...this.#extensions }
  }

  async #exchange(
    method: string,
    params: object,
    call: CallOptions,
  ): Promise<{ result: unknown; headers: HeaderReader }> {
    const answer = await requestJson(this.#http, this.url, {
      method: 'POST',
      headers: this.#headers('application/json'),
      body: encodeJsonRpcRequest(this.#nextId++, method, params as Record<string, never>),
      idempotent: READS.has(method),
      ...call,
    })
    const response = readJsonRpcResponse(answer.body)
    if (response && 'error' in response)
      throw fromV03JsonRpcError(response.error, answer.status, answer.headers)
    if (!response) {
      if (answer.status < 200 || answer.status >= 300) throw notJsonRpc(answer, this.url)
      throw new ClientError('PROTOCOL_ERROR', `${method}: the answer is not a JSON-RPC response`, {
        status: answer.status,
      })
    }
    return { result: response.result, headers: answer.headers }
  }

  /** message/send: the 1.0 request (returnImmediately) as 0.3 params (blocking: false). */
  async #send(request: Record<string, unknown>, call: CallOptions): Promise<RemoteTask> {
    const params = toV03SendParams(request as unknown as Parameters<typeof toV03SendParams>[0])
    const { result, headers } = await this.#exchange('message/send', params, call)
    const task = decodeSendResult(fromV03SendResult(readSendResult(result)))
    const echoed = parseExtensions(headers.get(V03_EXTENSIONS_HEADER))
    if (echoed.length > 0) task.extensions = echoed
    return task
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
    const { result } = await this.#exchange('tasks/get', { id: taskId }, call)
    return decodeTask(fromV03Task(readTask(result)))
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    const { result } = await this.#exchange('tasks/cancel', { id: taskId }, call)
    return decodeTask(fromV03Task(readTask(result)))
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  /** tasks/resubscribe: the Task, then its updates; Last-Event-ID resumes where our servers support it. */
  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const events = await openEventStream(this.#http, this.url, {
      method: 'POST',
      headers: this.#headers('text/event-stream'),
      body: encodeJsonRpcRequest(this.#nextId++, 'tasks/resubscribe', { id: taskId }),
      signal: options.signal,
      idleMs: options.idleMs,
      ...(options.lastEventId !== undefined && { lastEventId: options.lastEventId }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      failure: (answer) => {
        const response = readJsonRpcResponse(answer.body)
        return response && 'error' in response
          ? fromV03JsonRpcError(response.error, answer.status, answer.headers)
          : notJsonRpc(answer, this.url)
      },
    })
    return frames(events)
  }
}

/** Each SSE event is a JSON-RPC response carrying a 0.3 event; an error ends the stream. */
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
    if (response && 'error' in response) throw fromV03JsonRpcError(response.error, 200)
    if (!response)
      throw new ClientError('PROTOCOL_ERROR', 'a JSON-RPC stream event is not a JSON-RPC response')
    const item = decodeStreamResponse(fromV03StreamEvent(readEvent(response.result)))
    if (item) yield event.id === undefined ? { item } : { id: event.id, item }
  }
}
