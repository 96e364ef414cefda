import { type DescMessage, fromBinary, fromJson, type JsonValue, toBinary, toJson } from '@bufbuild/protobuf'
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js'
import { A2AService } from '../../src/dialects/a2a/wire/grpc/lf/a2a/v1/a2a_pb.ts'
import type { BenchInput } from '../protocol.ts'
import { configuration, message, type SendConfig, type StreamItem, type WireTask } from './a2a.ts'
import type { Http } from './http.ts'

type Method = { name: string; input: DescMessage; output: DescMessage }

const pathOf = (method: Method): string => `/${A2AService.typeName}/${method.name}`
const identity = (bytes: Buffer): Buffer => bytes

const failure = (method: Method, error: ServiceError): Error =>
  new Error(`${method.name} failed (gRPC ${error.code}): ${error.details}`)

/**
 * The A2A 1.0 gRPC binding for the load generator: the same ProtoJSON requests as the HTTP
 * bindings, as protobuf on one grpc-js channel (one HTTP/2 connection, every worker's calls
 * multiplexed on it, as gRPC clients do), answers read back as ProtoJSON so the same checks apply.
 * Where the service is and which tenant routes to the agent come from the agent's card.
 */
export class GrpcA2aClient {
  readonly #client: Client
  readonly #tenant: string

  private constructor(address: string, tenant: string) {
    this.#client = new Client(address, credentials.createInsecure())
    this.#tenant = tenant
  }

  /** Reads the card at the base URL and opens a channel to its GRPC interface. */
  static async connect(http: Http): Promise<GrpcA2aClient> {
    const card = await http.json('GET', '/.well-known/agent-card.json', undefined, {})
    const interfaces = (
      card.body as { supportedInterfaces?: { url: string; protocolBinding: string; tenant?: string }[] }
    ).supportedInterfaces
    const grpc = interfaces?.find((i) => i.protocolBinding === 'GRPC')
    if (!grpc) throw new Error(`the card lists no GRPC interface (HTTP ${card.status})`)
    return new GrpcA2aClient(grpc.url.replace(/^[a-z]+:\/\//, ''), grpc.tenant ?? '')
  }

  close(): void {
    this.#client.close()
  }

  #request(method: Method, json: object): Buffer {
    const body = { ...json, ...(this.#tenant && { tenant: this.#tenant }) }
    return Buffer.from(toBinary(method.input, fromJson(method.input, body as JsonValue)))
  }

  #metadata(): Metadata {
    const metadata = new Metadata()
    metadata.set('a2a-version', '1.0')
    return metadata
  }

  #unary(method: Method, json: object): Promise<unknown> {
    const request = this.#request(method, json)
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest<Buffer, Buffer>(
        pathOf(method),
        identity,
        identity,
        request,
        this.#metadata(),
        (error, bytes) => {
          if (error) reject(failure(method, error))
          else resolve(toJson(method.output, fromBinary(method.output, bytes!)))
        },
      )
    })
  }

  #stream(
    method: Method,
    json: object,
    onItem: (item: StreamItem) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const request = this.#request(method, json)
    return new Promise((resolve, reject) => {
      const call = this.#client.makeServerStreamRequest<Buffer, Buffer>(
        pathOf(method),
        identity,
        identity,
        request,
        this.#metadata(),
      )
      const onAbort = (): void => call.cancel()
      signal?.addEventListener('abort', onAbort, { once: true })
      call.on('data', (bytes: Buffer) => {
        try {
          onItem(toJson(method.output, fromBinary(method.output, bytes)) as StreamItem)
        } catch (error) {
          call.cancel()
          reject(error)
        }
      })
      call.on('error', (error: ServiceError) => {
        signal?.removeEventListener('abort', onAbort)
        // Cancelled by our own signal: the caller asked for the stream to end.
        if (signal?.aborted) resolve()
        else reject(failure(method, error))
      })
      call.on('end', () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      })
    })
  }

  async send(input: BenchInput, config: SendConfig = {}): Promise<WireTask> {
    const config_ = configuration(config)
    const result = (await this.#unary(A2AService.method.sendMessage, {
      message: message(input),
      ...(config_ && { configuration: config_ }),
    })) as { task?: WireTask }
    if (!result.task) throw new Error(`SendMessage returned no task: ${JSON.stringify(result).slice(0, 300)}`)
    return result.task
  }

  async get(id: string): Promise<WireTask> {
    return (await this.#unary(A2AService.method.getTask, { id })) as WireTask
  }

  async cancel(id: string): Promise<WireTask> {
    return (await this.#unary(A2AService.method.cancelTask, { id })) as WireTask
  }

  stream(input: BenchInput, onItem: (item: StreamItem) => void): Promise<void> {
    return this.#stream(A2AService.method.sendStreamingMessage, { message: message(input) }, onItem)
  }

  subscribe(id: string, onItem: (item: StreamItem) => void, signal?: AbortSignal): Promise<void> {
    return this.#stream(A2AService.method.subscribeToTask, { id }, onItem, signal)
  }
}
