import { ClientFactory } from '@a2a-js/sdk/client'
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc'
import { type DescMessage, fromJson, type JsonValue, type Message, toJson } from '@bufbuild/protobuf'
import {
  type CallOptions,
  type Client,
  type ClientReadableStream,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js'
import { A2AService, StreamResponseSchema } from '../../src/dialects/a2a/wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { a2aGrpcService, GRPC_METADATA } from '../../src/dialects/a2a/wire/grpc-service.ts'
import { decodeStatusDetails } from '../../src/dialects/a2a/wire/grpc-status.ts'
import type { TestServer } from '../a2a/helpers.ts'

/** The gRPC address of a test server (its cards publish the same). */
export const grpcAddressOf = (server: TestServer): string => {
  const address = server.switchboard.grpcAddress()
  if (!address) throw new Error('the test server has no gRPC binding')
  return address
}

/** The official @a2a-js/sdk 1.3 client for the agent at `base`, from its card, on the GRPC binding. */
export const sdkGrpcClient = (base: string) =>
  new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(
    `${base}/.well-known/agent-card.json`,
    '',
  )

const A2aServiceClient = makeGenericClientConstructor(a2aGrpcService, 'A2AService')

/** A bare grpc-js client of lf.a2a.v1.A2AService: protobuf messages in and out, metadata as given. */
export const rawClient = (address: string, channel = credentials.createInsecure()): Client =>
  new A2aServiceClient(address, channel)

export const metadataOf = (entries: Record<string, string>): Metadata => {
  const metadata = new Metadata()
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value)
  return metadata
}

export interface UnaryResult<T> {
  response?: T
  error?: ServiceError
  initial?: Metadata
}

/** One unary call by its method's local name (`getTask`), settled as a result or an error. */
export const unary = <T extends Message = Message>(
  client: Client,
  method: string,
  request: Message,
  metadata = new Metadata(),
  options: Partial<CallOptions> = {},
): Promise<UnaryResult<T>> =>
  new Promise((resolve) => {
    let initial: Metadata | undefined
    const fn = (
      client as unknown as Record<
        string,
        (...args: unknown[]) => { on(e: string, l: (m: Metadata) => void): void }
      >
    )[method]!
    const call = fn.call(client, request, metadata, options, (error: ServiceError | null, response: T) =>
      resolve(error ? { error, ...(initial && { initial }) } : { response, ...(initial && { initial }) }),
    )
    call.on('metadata', (m) => {
      initial = m
    })
  })

/** The google.rpc details of a gRPC error: its ErrorInfo and BadRequest. */
export const detailsOf = (error: ServiceError) => {
  const [bytes] = error.metadata.get(GRPC_METADATA.statusDetails)
  if (!(bytes instanceof Buffer)) throw new Error(`no ${GRPC_METADATA.statusDetails} on ${error.message}`)
  return decodeStatusDetails(bytes)
}

/** The request message of a method (local name), from ProtoJSON. */
export const requestOf = (method: string, json: JsonValue): Message => {
  const desc = A2AService.methods.find((m) => m.localName === method)
  if (!desc) throw new Error(`no method ${method}`)
  return fromJson(desc.input as DescMessage, json)
}

export interface StreamResult {
  messages: JsonValue[]
  initial?: Metadata
  error?: ServiceError
}

/** A server-streaming call read to its end (or error), its messages as ProtoJSON. */
export const stream = (
  client: Client,
  method: 'sendStreamingMessage' | 'subscribeToTask',
  request: Message,
  metadata = new Metadata(),
  options: Partial<CallOptions> = {},
  /** Called with each message as it arrives, and the call (to cancel it). */
  onMessage?: (json: JsonValue, call: ClientReadableStream<Message>) => void,
): Promise<StreamResult> =>
  new Promise((resolve) => {
    const fn = (client as unknown as Record<string, (...args: unknown[]) => ClientReadableStream<Message>>)[
      method
    ]!
    const call = fn.call(client, request, metadata, options)
    const result: StreamResult = { messages: [] }
    call.on('metadata', (m: Metadata) => {
      result.initial = m
    })
    call.on('data', (message: Message) => {
      const json = toJson(StreamResponseSchema, message as never)
      result.messages.push(json)
      onMessage?.(json, call)
    })
    call.on('error', (error: ServiceError) => {
      result.error = error
      resolve(result)
    })
    call.on('end', () => resolve(result))
  })

/** Either kind of call by method name: unary calls answer their message as ProtoJSON. */
export const callAny = async (
  client: Client,
  method: string,
  json: JsonValue,
  metadata = new Metadata(),
): Promise<{ error?: ServiceError; response?: JsonValue; messages?: JsonValue[] }> => {
  const request = requestOf(method, json)
  if (method === 'sendStreamingMessage' || method === 'subscribeToTask')
    return stream(client, method, request, metadata)
  const desc = A2AService.methods.find((m) => m.localName === method)!
  const result = await unary(client, method, request, metadata)
  return result.error
    ? { error: result.error }
    : { response: toJson(desc.output as DescMessage, result.response as never) }
}
