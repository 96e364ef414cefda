import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import type { DescMessage, JsonValue } from '@bufbuild/protobuf'
import { type ChannelCredentials, Client, credentials as channelCredentials, Metadata } from '@grpc/grpc-js'
import { context, propagation } from '@opentelemetry/api'
import { A2AService } from '../../dialects/a2a/wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { GRPC_METADATA } from '../../dialects/a2a/wire/grpc-service.ts'
import { formatExtensions } from '../../dialects/a2a/wire/service-parameters.ts'
import { A2A_VERSION } from '../../dialects/a2a/wire/shapes.ts'
import { toA2aState } from '../../dialects/a2a/wire/states.ts'
import type { JsonObject } from '../../model/events.ts'
import type { A2aCard, A2aInterface } from '../card.ts'
import type { HeaderReader } from '../card-cache.ts'
import { ClientError, isClientError } from '../errors.ts'
import { type HttpSettings, MAX_JSON_BYTES } from '../http.ts'
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
  decodeTask,
  decodeTaskPage,
  inputMessageRequest,
  sendMessageRequest,
} from './a2a-codec.ts'
import { withEchoedExtensions } from './a2a-extensions.ts'
import { GrpcEventStream } from './a2a-grpc-stream.ts'
import { decodeAnswer, encodeRequest, fromGrpcError, isServiceError } from './a2a-grpc-wire.ts'

/**
 * TLS material for gRPC interfaces: a private CA, and a client certificate for mTLS. Without it
 * a TLS channel trusts the system CAs (Node's, plus NODE_EXTRA_CA_CERTS). An undici dispatcher
 * does not reach gRPC: its TLS settings must be given here too.
 */
export interface GrpcSettings {
  ca?: string | Buffer
  cert?: string | Buffer
  key?: string | Buffer
}

/** Where a card's gRPC interface is: the address grpc-js dials, its `http(s)://host:port` form, TLS or not. */
export interface GrpcTarget {
  address: string
  url: string
  tls: boolean
}

const SCHEMES: Readonly<Record<string, boolean>> = {
  'https:': true,
  'grpcs:': true,
  'http:': false,
  'grpc:': false,
}

/**
 * A card's gRPC `url`. 1.0.1 says `host:port`; then TLS is used when the agent itself (its card)
 * was reached over https. An absolute URL (the wording of the 1.0.1 proto comment) says it
 * itself: https/grpcs TLS, http/grpc plain. Undefined for anything else.
 */
export const grpcTarget = (value: string, agentUrl: string | undefined): GrpcTarget | undefined => {
  const absolute = /^[a-z][a-z\d+.-]*:\/\//i.test(value)
  let parsed: URL
  try {
    parsed = new URL(absolute ? value : `http://${value}`)
  } catch {
    return undefined
  }
  const agentTls = agentUrl !== undefined && /^https:/i.test(agentUrl)
  const tls = absolute ? SCHEMES[parsed.protocol] : agentTls
  if (tls === undefined || parsed.pathname.replace(/\/+$/, '') !== '' || parsed.search || parsed.username)
    return undefined
  const port = parsed.port || (absolute ? (tls ? '443' : '80') : '')
  if (!port) return undefined
  const address = `${parsed.hostname}:${port}`
  return { address, url: `${tls ? 'https' : 'http'}://${address}`, tls }
}

/** Pings on an idle HTTP/2 connection that carries a stream: a dead peer is noticed without any event. */
const KEEPALIVE_MS = 30_000
const KEEPALIVE_TIMEOUT_MS = 20_000

const passThrough = (bytes: Buffer): Buffer => bytes

/**
 * The CAs of a TLS channel given none: Node's roots plus NODE_EXTRA_CA_CERTS, as undici (the
 * HTTP bindings) trusts them; grpc-js left to itself ignores the extra certificates. Null (grpc-js's
 * own default) when there are none or they cannot be read.
 */
const defaultCa = (): Buffer | null => {
  const extra = process.env.NODE_EXTRA_CA_CERTS
  if (!extra) return null
  try {
    return Buffer.from([...rootCertificates, readFileSync(extra, 'utf8')].join('\n'))
  } catch {
    return null
  }
}

type Method = { name: string; input: DescMessage; output: DescMessage }

/** Initial metadata read like response headers (the `a2a-extensions` echo). */
const headerReader = (metadata: Metadata | undefined): HeaderReader => ({
  get: (name) => {
    const values = metadata?.get(name.toLowerCase()).map(String) ?? []
    return values.length > 0 ? values.join(',') : null
  },
})

/**
 * The A2A 1.0 gRPC binding (digest §4.5): service lf.a2a.v1.A2AService over @grpc/grpc-js. Each
 * request is the ProtoJSON the HTTP bindings send, plus the interface's `tenant`, as protobuf;
 * each answer is read back as ProtoJSON by the same codec. Service parameters and credentials
 * travel as metadata; a stream resumes with `last-event-id`, our server's event sequences being
 * the frame ids.
 */
export class GrpcTransport implements Transport {
  readonly kind = 'grpc' as const
  readonly dialect = 'a2a' as const
  readonly streaming: boolean
  readonly url: string
  readonly #target: GrpcTarget
  readonly #tenant: string | undefined
  readonly #http: HttpSettings
  readonly #extensions: readonly string[]
  readonly #tls: GrpcSettings | undefined
  #client: Client | undefined

  constructor(options: {
    iface: A2aInterface
    card: A2aCard
    http: HttpSettings
    extensions?: readonly string[]
    /** Where the card was read: an https agent means a TLS channel for a `host:port` interface. */
    agentUrl?: string
    grpc?: GrpcSettings
  }) {
    const target = grpcTarget(options.iface.url, options.agentUrl)
    if (!target)
      throw new ClientError('CARD_INVALID', `the gRPC interface "${options.iface.url}" is not host:port`)
    this.#target = target
    this.url = target.url
    this.#tenant = options.iface.tenant || undefined
    this.#http = options.http
    this.#extensions = options.extensions ?? []
    this.#tls = options.grpc
    this.streaming = options.card.capabilities.streaming === true
  }

  /** One channel per interface, opened at the first call; idle, it holds no connection. */
  #channel(): Client {
    if (!this.#client) {
      let creds: ChannelCredentials
      const tls = this.#tls
      if (this.#target.tls) {
        const bytes = (value: string | Buffer | undefined) =>
          value === undefined ? null : Buffer.isBuffer(value) ? value : Buffer.from(value)
        creds = channelCredentials.createSsl(bytes(tls?.ca) ?? defaultCa(), bytes(tls?.key), bytes(tls?.cert))
      } else creds = channelCredentials.createInsecure()
      this.#client = new Client(this.#target.address, creds, {
        'grpc.keepalive_time_ms': KEEPALIVE_MS,
        'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
        'grpc.max_receive_message_length': MAX_JSON_BYTES,
      })
    }
    return this.#client
  }

  /** The call's metadata: credentials (see OriginCredentials.coversService), version, extensions. */
  async #metadata(
    extra: Record<string, string> = {},
  ): Promise<{ metadata: Metadata; sent: Record<string, string> }> {
    const sent = (await this.#http.credentials?.headersForService(this.url)) ?? {}
    const metadata = new Metadata()
    try {
      for (const [name, value] of Object.entries({ ...sent, ...extra })) metadata.set(name, value)
    } catch (error) {
      throw new ClientError(
        'INVALID_REQUEST',
        `a header cannot travel as gRPC metadata: ${(error as Error).message}`,
      )
    }
    metadata.set(GRPC_METADATA.version, A2A_VERSION)
    // The caller's trace context (a no-op when tracing is off): the agent's span is its child.
    propagation.inject(context.active(), metadata, { set: (carrier, key, value) => carrier.set(key, value) })
    if (this.#extensions.length > 0)
      metadata.set(GRPC_METADATA.extensions, formatExtensions(this.#extensions))
    return { metadata, sent }
  }

  #request(method: Method, json: JsonObject): Buffer {
    return encodeRequest(
      method.input,
      { ...json, ...(this.#tenant && { tenant: this.#tenant }) },
      `gRPC ${method.name}`,
    )
  }

  /**
   * A call that the server refused for its credentials (UNAUTHENTICATED) is made once more with
   * fresh ones when they can be renewed (an OAuth token), as over HTTP.
   */
  async #withRenewal<T>(
    attempt: (metadata: Metadata) => Promise<T>,
    extra?: Record<string, string>,
  ): Promise<T> {
    for (let renewed = false; ; renewed = true) {
      const { metadata, sent } = await this.#metadata(extra)
      try {
        return await attempt(metadata)
      } catch (error) {
        const refused = isClientError(error) && error.code === 'UNAUTHENTICATED'
        if (!refused || renewed || !this.#http.credentials?.refused(sent)) throw error
      }
    }
  }

  async #unary(
    method: Method,
    json: JsonObject,
    call: CallOptions,
  ): Promise<{ answer: JsonValue; headers: HeaderReader }> {
    const request = this.#request(method, json)
    const path = `/${A2AService.typeName}/${method.name}`
    const what = `gRPC ${method.name} at ${this.#target.address}`
    const timeoutMs = call.timeoutMs ?? this.#http.timeoutMs
    return this.#withRenewal(
      (metadata) =>
        new Promise((resolve, reject) => {
          const { signal } = call
          if (signal?.aborted) {
            reject(new ClientError('ABORTED', `${what}: aborted`, { cause: signal.reason }))
            return
          }
          let head: Metadata | undefined
          const deadline = timeoutMs > 0 && Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : Infinity
          const pending = this.#channel().makeUnaryRequest<Buffer, Buffer>(
            path,
            passThrough,
            passThrough,
            request,
            metadata,
            { deadline },
            (error, bytes) => {
              signal?.removeEventListener('abort', onAbort)
              if (error) {
                if (signal?.aborted)
                  reject(new ClientError('ABORTED', `${what}: aborted`, { cause: signal.reason }))
                else if (isServiceError(error)) reject(fromGrpcError(error, what))
                else
                  reject(new ClientError('CONNECTION_FAILED', `${what}: ${String(error)}`, { cause: error }))
                return
              }
              try {
                resolve({ answer: decodeAnswer(method.output, bytes!, what), headers: headerReader(head) })
              } catch (failure) {
                reject(failure)
              }
            },
          )
          const onAbort = (): void => pending.cancel()
          signal?.addEventListener('abort', onAbort, { once: true })
          pending.on('metadata', (metadata: Metadata) => {
            head = metadata
          })
        }),
    )
  }

  async send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    const { answer, headers } = await this.#unary(
      A2AService.method.sendMessage,
      sendMessageRequest(request),
      call,
    )
    return withEchoedExtensions(decodeSendResult(answer), headers)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask((await this.#unary(A2AService.method.getTask, { id: taskId }, call)).answer)
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeTask((await this.#unary(A2AService.method.cancelTask, { id: taskId }, call)).answer)
  }

  async provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    const { answer, headers } = await this.#unary(
      A2AService.method.sendMessage,
      inputMessageRequest(task, payload),
      call,
    )
    return withEchoedExtensions(decodeSendResult(answer), headers)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    return (await this.get(taskId, call)).artifacts ?? []
  }

  async list(query: ListQuery, call: CallOptions): Promise<TaskPage> {
    const json: JsonObject = {}
    if (query.state) json.status = toA2aState(query.state)
    if (query.contextId) json.contextId = query.contextId
    if (query.pageSize !== undefined) json.pageSize = query.pageSize
    if (query.pageToken) json.pageToken = query.pageToken
    if (query.includeArtifacts) json.includeArtifacts = true
    return decodeTaskPage((await this.#unary(A2AService.method.listTasks, json, call)).answer)
  }

  /**
   * SubscribeToTask. The call has no deadline (it lives as long as the task's stream); the
   * timeout bounds the wait for its initial metadata. Liveness is HTTP/2 keepalive, not message
   * silence: a gRPC stream carries no pings of its own.
   */
  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const method = A2AService.method.subscribeToTask
    const request = this.#request(method, { id: taskId })
    const path = `/${A2AService.typeName}/${method.name}`
    const what = `gRPC ${method.name} at ${this.#target.address}`
    const resume: Record<string, string> =
      options.lastEventId === undefined ? {} : { [GRPC_METADATA.lastEventId]: options.lastEventId }
    return this.#withRenewal(async (metadata) => {
      const call = this.#channel().makeServerStreamRequest<Buffer, Buffer>(
        path,
        passThrough,
        passThrough,
        request,
        metadata,
        {},
      )
      const stream = new GrpcEventStream(call, what)
      const head = await stream.head({
        signal: options.signal,
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      })
      return stream.frames(head, options.signal)
    }, resume)
  }
}
