import { ClientFactory } from '@a2a-js/sdk/client'
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc'
import type { Message } from '@bufbuild/protobuf'
import {
  type CallOptions,
  type Client,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js'
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
