import { randomUUID } from 'node:crypto'
import { type BenchInput, JSONRPC_PATH, REST_PATH } from '../protocol.ts'
import type { Http, SseEvent } from './http.ts'

/** The A2A 1.0 bindings the bench drives: the two HTTP ones here, gRPC in grpc.ts. */
export type Binding = 'jsonrpc' | 'rest' | 'grpc'

/** The parts of an A2A Task the verifier reads (ProtoJSON, as both servers write it). */
export interface WireTask {
  id: string
  contextId: string
  status?: { state?: string }
  artifacts?: { name?: string; artifactId?: string; parts?: { text?: string }[] }[]
}

/** A StreamResponse: exactly one of these members. */
export interface StreamItem {
  task?: WireTask
  statusUpdate?: { taskId: string; status?: { state?: string } }
  artifactUpdate?: {
    taskId: string
    artifact?: { artifactId?: string; name?: string; parts?: { text?: string }[] }
    append?: boolean
    lastChunk?: boolean
  }
  message?: unknown
}

export interface SendConfig {
  returnImmediately?: boolean
  push?: { url: string; token: string }
}

const VERSION = { 'A2A-Version': '1.0' }

export const message = (input: BenchInput) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data: input }],
})

export const configuration = (config: SendConfig) => {
  if (!config.returnImmediately && !config.push) return undefined
  return {
    ...(config.returnImmediately && { returnImmediately: true }),
    ...(config.push && { taskPushNotificationConfig: { url: config.push.url, token: config.push.token } }),
  }
}

const fail = (what: string, body: unknown): never => {
  throw new Error(`${what}: ${JSON.stringify(body).slice(0, 300)}`)
}

/** The A2A 1.0 operations the scenarios use, with the answers unwrapped: the same over every binding. */
export interface A2aOperations {
  send(input: BenchInput, config?: SendConfig): Promise<WireTask>
  get(id: string): Promise<WireTask>
  cancel(id: string): Promise<WireTask>
  stream(input: BenchInput, onItem: (item: StreamItem) => void): Promise<void>
  subscribe(id: string, onItem: (item: StreamItem) => void, signal?: AbortSignal): Promise<void>
}

/** The A2A 1.0 operations over either HTTP binding. */
export class A2aClient implements A2aOperations {
  readonly #http: Http
  readonly #binding: 'jsonrpc' | 'rest'
  #rpcId = 0

  constructor(http: Http, binding: Binding) {
    if (binding === 'grpc') throw new Error('gRPC is GrpcA2aClient (bench/client/grpc.ts)')
    this.#http = http
    this.#binding = binding
  }

  async send(input: BenchInput, config: SendConfig = {}): Promise<WireTask> {
    const params = { message: message(input), configuration: configuration(config) }
    const result = (await this.#call('SendMessage', 'POST', '/message:send', params)) as { task?: WireTask }
    return result.task ?? fail('SendMessage returned no task', result)
  }

  async get(id: string): Promise<WireTask> {
    return (await this.#call('GetTask', 'GET', `/tasks/${id}`, { id })) as WireTask
  }

  async cancel(id: string): Promise<WireTask> {
    return (await this.#call('CancelTask', 'POST', `/tasks/${id}:cancel`, { id })) as WireTask
  }

  /** SendStreamingMessage; `onItem` sees every StreamResponse; resolves when the server ends the stream. */
  stream(input: BenchInput, onItem: (item: StreamItem) => void): Promise<void> {
    return this.#stream(
      'SendStreamingMessage',
      'POST',
      '/message:stream',
      { message: message(input) },
      onItem,
    )
  }

  /** SubscribeToTask (GET on HTTP+JSON, as the proto maps it; both servers also take POST). */
  subscribe(id: string, onItem: (item: StreamItem) => void, signal?: AbortSignal): Promise<void> {
    return this.#stream('SubscribeToTask', 'GET', `/tasks/${id}:subscribe`, { id }, onItem, signal)
  }

  async #call(method: string, httpMethod: string, restPath: string, params: object): Promise<unknown> {
    if (this.#binding === 'jsonrpc') {
      const id = ++this.#rpcId
      const response = await this.#http.json(
        'POST',
        JSONRPC_PATH,
        { jsonrpc: '2.0', id, method, params },
        VERSION,
      )
      const body = response.body as { id?: unknown; result?: unknown; error?: unknown }
      if (response.status !== 200 || body.error !== undefined || body.id !== id)
        fail(`${method} failed (${response.status})`, body)
      return body.result
    }
    const response = await this.#http.json(
      httpMethod,
      REST_PATH + restPath,
      httpMethod === 'GET' ? undefined : params,
      VERSION,
    )
    if (response.status !== 200) fail(`${method} failed (${response.status})`, response.body)
    return response.body
  }

  async #stream(
    method: string,
    httpMethod: string,
    restPath: string,
    params: object,
    onItem: (item: StreamItem) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const deliver = (event: SseEvent): void => {
      if (event.event === 'error') fail(`${method} stream error`, event.data)
      if (this.#binding === 'rest') {
        onItem(event.data as StreamItem)
        return
      }
      const body = event.data as { result?: StreamItem; error?: unknown }
      if (body.error !== undefined || body.result === undefined) fail(`${method} stream error`, body)
      onItem(body.result!)
    }
    if (this.#binding === 'jsonrpc') {
      const body = { jsonrpc: '2.0', id: ++this.#rpcId, method, params }
      await this.#http.sse('POST', JSONRPC_PATH, body, VERSION, deliver, signal)
    } else {
      const body = httpMethod === 'GET' ? undefined : params
      await this.#http.sse(httpMethod, REST_PATH + restPath, body, VERSION, deliver, signal)
    }
  }
}
