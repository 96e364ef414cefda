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

/** What a call that never waits is given: no call of it can abort anything. */
const NEVER_ABORTED = new AbortController().signal

/**
 * The call's end as a signal, until the call is answered: grpc-js reports the client's
 * cancellation and a passed deadline alike as `cancelled`, and the wait or stream behind the call
 * stops, its subscription freed. It also reports every answered call's stream closing so; an abort
 * then would free nothing and cost a DOMException per call (a twentieth of a GetTask's CPU), so
 * `answered` stops listening.
 */
const callSignal = (call: Call): { signal: AbortSignal; answered: () => void } => {
  const controller = new AbortController()
  const abort = (): void => controller.abort()
  if (call.cancelled) abort()
  else call.once('cancelled', abort)
  return { signal: controller.signal, answered: () => call.removeListener('cancelled', abort) }
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
    options: {
      /** The call may wait (a blocking SendMessage): the client's cancellation must stop it. */
      waits?: boolean
      /** The card's 0.3 fields (served beside 1.0 on HTTP) have no proto field: they are left out. */
      ignoreUnknownFields?: boolean
    } = {},
  ) => {
    const method = methodOf(name)
    const { waits = false, ignoreUnknownFields = false } = options
    return (call: ServerUnaryCall<Message, Message>, callback: sendUnaryData<Message>) => {
      const ended = waits ? callSignal(call) : undefined
      const answer = async () => {
        try {
          const request = toJson(method.input as DescMessage, call.request) as Request
          const { operations, extensions } = await prepare(peerOf(call), request)
          if (extensions.activated.length > 0) call.sendMetadata(initialMetadata(extensions))
          const result = (await run(operations, request, ended?.signal ?? NEVER_ABORTED)) ?? {}
          return fromJson(method.output as DescMessage, result as JsonValue, { ignoreUnknownFields })
        } finally {
          ended?.answered()
        }
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
      const { signal, answered } = callSignal(call)
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
          }).finally(answered),
        (error: unknown) => {
          answered()
          call.emit('error', toGrpcError(error, server.logger))
        },
      )
    }
  }

  return {
    sendMessage: unary('SendMessage', (ops, request, signal) => ops.sendMessage(request, signal), {
      waits: true,
    }),
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
    getExtendedAgentCard: unary('GetExtendedAgentCard', (ops, request) => ops.getExtendedCard(request), {
      ignoreUnknownFields: true,
    }),
    deleteTaskPushNotificationConfig: unary('DeleteTaskPushNotificationConfig', (ops, request) =>
      ops.deletePushConfig(request),
    ),
  }
}
