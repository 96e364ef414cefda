import { type DescMethod, fromBinary, toBinary } from '@bufbuild/protobuf'
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js'
import { A2AService } from './grpc/lf/a2a/v1/a2a_pb.ts'

/**
 * The A2A 1.0 gRPC service (package lf.a2a.v1, digest §4.5) as @grpc/grpc-js sees it: one method
 * per RPC of the generated descriptor, keyed by its local name (`sendMessage`), with protobuf
 * binary (de)serialisers. Shared by the server and the client transport.
 */
export const A2A_GRPC_SERVICE_NAME = A2AService.typeName

/** The metadata keys of the binding: the service parameters (digest §4.5), lower-case as gRPC sends them. */
export const GRPC_METADATA = {
  version: 'a2a-version',
  extensions: 'a2a-extensions',
  /** The standard gRPC error details: a binary google.rpc.Status. */
  statusDetails: 'grpc-status-details-bin',
  /**
   * Beyond the spec: the event sequence of the stream's Task snapshot, in a stream's initial
   * metadata (like the `id:` of the first SSE frame).
   */
  eventSeq: 'switchboard-event-seq',
  /** Beyond the spec: SubscribeToTask resumes after this event sequence (like SSE Last-Event-ID). */
  lastEventId: 'last-event-id',
} as const

/**
 * Beyond the spec: the `metadata` key of a statusUpdate / artifactUpdate that ends an event,
 * whose number is that event's sequence (what `last-event-id` resumes after).
 */
export const EVENT_SEQ_KEY = 'switchboard.eventSeq'

type AnyMethod = DescMethod

const definitionOf = (method: AnyMethod): MethodDefinition<unknown, unknown> => ({
  path: `/${A2AService.typeName}/${method.name}`,
  requestStream: false,
  responseStream: method.methodKind === 'server_streaming',
  requestSerialize: (message) => Buffer.from(toBinary(method.input, message as never)),
  requestDeserialize: (bytes) => fromBinary(method.input, bytes),
  responseSerialize: (message) => Buffer.from(toBinary(method.output, message as never)),
  responseDeserialize: (bytes) => fromBinary(method.output, bytes),
})

export const a2aGrpcService: ServiceDefinition = Object.fromEntries(
  A2AService.methods.map((method) => [method.localName, definitionOf(method)]),
)
