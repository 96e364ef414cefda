import { type DescMessage, fromJson, type JsonValue, type Message, toJson } from '@bufbuild/protobuf'
import {
  Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js'
import type { ExtensionNegotiation } from '../extensions.ts'
import type { A2aOperations } from '../operations.ts'
import type { StreamItems } from '../stream.ts'
import { A2AService } from '../wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { GRPC_METADATA } from '../wire/grpc-service.ts'
import { formatExtensions } from '../wire/service-parameters.ts'
import { type A2aGrpcOptions, callPreparer, type GrpcPeer, headersOf } from './calls.ts'
import { toGrpcError } from './errors.ts'
import { lastEventIdOf, writeStream } from './stream.ts'

type Call = ServerUnaryCall<Message, Message> | ServerWritableStream<Message, Message>
type Request = Record<string, unknown>

/** The caller as the authenticators see it: metadata as headers, the verified client certificate. */
const peerOf = (call: Call): GrpcPeer => {
  const certificate = call.getAuthContext().sslPeerCertificate
  return {
    headers: headersOf(call.metadata),
    address: call.getPeer(),
    ...(certificate && { peerCertificate: certificate }),
  }
}

/**
 * The call's end as a signal: grpc-js reports the client's cancellation and a passed deadline
 * alike as `cancelled`; the wait or stream behind the call stops, and its subscription is freed.
 */
const signalOf = (call: Call): AbortSignal => {
  const controller = new AbortController()
  if (call.cancelled) controller.abort()
  else call.once('cancelled', () => controller.abort())
  return controller.signal
}

/** The initial metadata: the activated extensions, echoed as the HTTP bindings do in A2A-Extensions. */
const initialMetadata = (extensions: ExtensionNegotiation): Metadata => {
  const metadata = new Metadata()
  if (extensions.activated.length > 0)
    metadata.set(GRPC_METADATA.extensions, formatExtensions(extensions.activated))
  return metadata
}

const methodOf = (name: string) => {
  const method = A2AService.methods.find((m) => m.name === name)
  if (!method) throw new TypeError(`lf.a2a.v1.A2AService has no method ${name}`)
  return method
}

/**
 * The lf.a2a.v1.A2AService implementation: each RPC turns its protobuf request into ProtoJSON,
 * runs the same A2aOperations the JSON-RPC and REST bindings run, and turns the ProtoJSON answer
 * back into protobuf. Errors are the HTTP bindings' ErrorInfo on gRPC codes (errors.ts).
 */
export const a2aGrpcImplementation = (options: A2aGrpcOptions): UntypedServiceImplementation => {
  const prepare = callPreparer(options)
  const { server } = options

  const unary = (
    name: string,
    run: (operations: A2aOperations, request: Request, signal: AbortSignal) => Promise<unknown>,
    /** The card's 0.3 fields (served beside 1.0 on HTTP) have no proto field: they are left out. */
    ignoreUnknownFields = false,
  ) => {
    const method = methodOf(name)
    return (call: ServerUnaryCall<Message, Message>, callback: sendUnaryData<Message>) => {
      const signal = signalOf(call)
      const answer = async () => {
        const request = toJson(method.input as DescMessage, call.request) as Request
        const { operations, extensions } = await prepare(peerOf(call), request)
        if (extensions.activated.length > 0) call.sendMetadata(initialMetadata(extensions))
        const result = (await run(operations, request, signal)) ?? {}
        return fromJson(method.output as DescMessage, result as JsonValue, { ignoreUnknownFields })
      }
      answer().then(
        (response) => callback(null, response),
        (error: unknown) => callback(toGrpcError(error, server.logger)),
      )
    }
  }

  const streaming = (
    name: string,
    open: (
      operations: A2aOperations,
      request: Request,
      peer: GrpcPeer,
      signal: AbortSignal,
    ) => Promise<{ items: StreamItems; resumed: boolean }>,
  ) => {
    const method = methodOf(name)
    return (call: ServerWritableStream<Message, Message>) => {
      const signal = signalOf(call)
      const start = async () => {
        const request = toJson(method.input as DescMessage, call.request) as Request
        const peer = peerOf(call)
        const { operations, extensions } = await prepare(peer, request)
        return { ...(await open(operations, request, peer, signal)), initial: initialMetadata(extensions) }
      }
      start().then(
        ({ items, resumed, initial }) =>
          writeStream({
            call: call as ServerWritableStream<unknown, unknown>,
            items,
            initial,
            resumed,
            server,
          }),
        (error: unknown) => {
          call.emit('error', toGrpcError(error, server.logger))
        },
      )
    }
  }

  return {
    sendMessage: unary('SendMessage', (ops, request, signal) => ops.sendMessage(request, signal)),
    sendStreamingMessage: streaming('SendStreamingMessage', async (ops, request, _peer, signal) => ({
      items: await ops.openMessageStream(request, signal),
      resumed: false,
    })),
    getTask: unary('GetTask', (ops, request) => ops.getTask(request)),
    listTasks: unary('ListTasks', (ops, request) => ops.listTasks(request)),
    cancelTask: unary('CancelTask', (ops, request) => ops.cancelTask(request)),
    subscribeToTask: streaming('SubscribeToTask', async (ops, request, peer, signal) => {
      const resumeAfter = lastEventIdOf(peer.headers[GRPC_METADATA.lastEventId])
      return {
        items: await ops.openSubscription(request, resumeAfter, signal),
        resumed: resumeAfter !== undefined,
      }
    }),
    createTaskPushNotificationConfig: unary('CreateTaskPushNotificationConfig', (ops, request) =>
      ops.createPushConfig(request),
    ),
    getTaskPushNotificationConfig: unary('GetTaskPushNotificationConfig', (ops, request) =>
      ops.getPushConfig(request),
    ),
    listTaskPushNotificationConfigs: unary('ListTaskPushNotificationConfigs', (ops, request) =>
      ops.listPushConfigs(request),
    ),
    getExtendedAgentCard: unary('GetExtendedAgentCard', (ops, request) => ops.getExtendedCard(request), true),
    deleteTaskPushNotificationConfig: unary('DeleteTaskPushNotificationConfig', (ops, request) =>
      ops.deletePushConfig(request),
    ),
  }
}
