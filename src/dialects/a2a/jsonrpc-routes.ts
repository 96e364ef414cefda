import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { CallerSignal } from '../../engine/caller-signal.ts'
import { SwitchboardError } from '../../model/errors.ts'
import type { JsonText } from '../../model/json.ts'
import type { ServerContext } from '../../web/context.ts'
import { disconnectSignal, lastEventId, type SseFrame } from '../../web/sse.ts'
import { type A2aFailure, a2aFailure, jsonRpcError, toA2aFailure } from './errors.ts'
import {
  failedStream,
  isV03Method,
  V03_STREAMING,
  V03_UNARY,
  type V03StreamItem,
  V10_METHOD_OF,
  v03JsonRpcError,
} from './jsonrpc-v03.ts'
import { JSON_CONTENT_TYPE, responseType } from './media-type.ts'
import type { A2aOperations } from './operations.ts'
import { type StreamEncoding, serveStream } from './stream.ts'
import { A2A_V03, type A2aWireVersion, assertVersion, negotiateVersion } from './version.ts'
import { encodeJsonRpcError, encodeJsonRpcResult, type RpcId, readJsonRpcRequest } from './wire/jsonrpc.ts'
import type { StreamItem } from './wire/shapes.ts'

/**
 * One JSON-RPC call. A class and not an object literal with a getter: V8 keeps a literal's getter,
 * and the whole request it closes over, past the young collections until a full one (bench/HISTORY.md,
 * _What kept every request's objects_).
 */
class CallContext {
  readonly request: FastifyRequest
  readonly #reply: FastifyReply
  #signal: CallerSignal | undefined

  constructor(request: FastifyRequest, reply: FastifyReply) {
    this.request = request
    this.#reply = reply
  }

  /** Aborted when the client goes away; made on first use (GetTask never needs one). */
  get signal(): CallerSignal {
    this.#signal ??= disconnectSignal(this.#reply.raw)
    return this.#signal
  }
}

type Unary = (ops: A2aOperations, params: unknown, call: CallContext) => Promise<unknown> | unknown
type Streaming = (
  ops: A2aOperations,
  params: unknown,
  call: CallContext,
) => Promise<AsyncIterableIterator<StreamItem>>

const UNARY: Readonly<Record<string, Unary>> = {
  SendMessage: (ops, params, call) => ops.sendMessage(params, call.signal),
  GetTask: (ops, params) => ops.getTask(params),
  ListTasks: (ops, params) => ops.listTasks(params),
  CancelTask: (ops, params) => ops.cancelTask(params),
  CreateTaskPushNotificationConfig: (ops, params) => ops.createPushConfig(params),
  GetTaskPushNotificationConfig: (ops, params) => ops.getPushConfig(params),
  ListTaskPushNotificationConfigs: (ops, params) => ops.listPushConfigs(params),
  // The result is google.protobuf.Empty.
  DeleteTaskPushNotificationConfig: async (ops, params) => {
    await ops.deletePushConfig(params)
    return {}
  },
  GetExtendedAgentCard: (ops, params) => ops.getExtendedCard(params),
}

const STREAMING: Readonly<Record<string, Streaming>> = {
  SendStreamingMessage: (ops, params, call) => ops.openMessageStream(params, call.signal),
  // serveStream ends the items when the client goes away: no signal to hold for the stream's life.
  SubscribeToTask: (ops, params, call) => ops.openSubscription(params, lastEventId(call.request)),
}

/** What a version's stream puts in each success response, and how it writes a failure. */
interface JsonRpcStreamVersion<T> {
  resultOf(item: T): unknown
  errorOf(failure: A2aFailure): unknown
}

const V10_STREAM: JsonRpcStreamVersion<StreamItem> = {
  resultOf: (item) => item.response,
  errorOf: jsonRpcError,
}

const V03_STREAM: JsonRpcStreamVersion<V03StreamItem> = {
  resultOf: (item) => item.event,
  errorOf: v03JsonRpcError,
}

/** A stream's events as success responses for its request's id (one object a stream: StreamEncoding). */
class JsonRpcStreamEncoding<T> implements StreamEncoding<T> {
  readonly #id: RpcId
  readonly #version: JsonRpcStreamVersion<T>

  constructor(id: RpcId, version: JsonRpcStreamVersion<T>) {
    this.#id = id
    this.#version = version
  }

  encode(item: T): JsonText {
    return encodeJsonRpcResult(this.#id, this.#version.resultOf(item))
  }

  encodeError(failure: A2aFailure): SseFrame {
    return { event: 'error', data: encodeJsonRpcError(this.#id, this.#version.errorOf(failure)) }
  }
}

/**
 * The A2A JSON-RPC binding: one POST endpoint. Every answer is HTTP 200 — errors included, as the
 * JSON-RPC error object — except streams, which are SSE whose every event is a JSON-RPC success
 * response carrying the request id.
 */
export const a2aJsonRpcRoutes = async (
  app: FastifyInstance,
  options: {
    operationsOf: (request: FastifyRequest, version?: A2aWireVersion) => A2aOperations
    server: ServerContext
  },
) => {
  const { operationsOf, server } = options

  // application/json (1.0.1 §9.1), or application/a2a+json to a client that sent or asked for it.
  const typeOf = (reply: FastifyReply) => responseType(reply.request.headers, JSON_CONTENT_TYPE)
  /**
   * A request that negotiates 0.3 gets its errors in 0.3's shape (`data` an object), unless it
   * calls a 1.0 method: that one is refused in 1.0's shape, telling the client to send A2A-Version.
   */
  const speaksV03 = (request: FastifyRequest, method?: string): boolean => {
    if (method !== undefined && (Object.hasOwn(UNARY, method) || Object.hasOwn(STREAMING, method)))
      return false
    try {
      return negotiateVersion(request, server) === A2A_V03
    } catch {
      return false
    }
  }
  const sendError = (reply: FastifyReply, id: RpcId, failure: A2aFailure, status = 200, method?: string) => {
    if (failure.internal) server.logger.error({ err: failure.internal }, 'A2A JSON-RPC request failed')
    server.countHandlerError?.(failure.metadata.code ?? failure.kind)
    const error = speaksV03(reply.request, method) ? v03JsonRpcError(failure) : jsonRpcError(failure)
    return reply.code(status).type(typeOf(reply)).send(encodeJsonRpcError(id, error))
  }

  const sendResult = (reply: FastifyReply, id: RpcId, result: unknown) =>
    reply.type(typeOf(reply)).send(encodeJsonRpcResult(id, result))
  /** A stream: each item's result (the version's event) a success response for `id`; a failure the version's error. */
  const sendStream = <T extends { id?: number }>(
    reply: FastifyReply,
    id: RpcId,
    items: AsyncIterableIterator<T>,
    version: JsonRpcStreamVersion<T>,
  ) => serveStream({ reply, server, items, encoding: new JsonRpcStreamEncoding(id, version) })

  // Reached only by what fails before the handler: malformed JSON (-32700), a body too large, and
  // the server's refusal of the caller (authentication, per-agent access), which is the transport's
  // answer before any JSON-RPC was read: HTTP 401 (with WWW-Authenticate) or 403, as for HTTP+JSON.
  app.setErrorHandler((error, _request, reply) => {
    const failure = toA2aFailure(error)
    const refused = failure.kind === 'UnauthenticatedError' || failure.kind === 'PermissionDeniedError'
    return sendError(reply, null, failure, refused ? failure.httpStatus : 200)
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      null,
      a2aFailure(
        'MethodNotFoundError',
        `nothing at ${request.method} ${request.url.split('?')[0]}: JSON-RPC requests are POSTed to the interface URL`,
      ),
      404,
    ),
  )

  /** A 0.3 call: the same operations, through the 0.3 converters, answered in 0.3 shapes. */
  const serveV03 = async (
    request: FastifyRequest,
    reply: FastifyReply,
    { id, method, params }: { id: RpcId; method: string; params: unknown },
    call: CallContext,
  ) => {
    const ops = operationsOf(request, A2A_V03)
    const streaming = Object.hasOwn(V03_STREAMING, method) ? V03_STREAMING[method] : undefined
    if (streaming) {
      // A 0.3 client reads any answer to a stream request as SSE (@a2a-js/sdk 0.3 refuses anything
      // else): a failure before the first event is the stream's one error event.
      const items = await streaming(ops, params, {
        signal: call.signal,
        resumeAfter: lastEventId(request),
      }).catch(failedStream)
      return sendStream(reply, id, items, V03_STREAM)
    }
    return sendResult(reply, id, await V03_UNARY[method]!(ops, params, () => call.signal))
  }

  app.post('/', async (request, reply) => {
    const envelope = readJsonRpcRequest(request.body)
    if ('invalid' in envelope)
      return sendError(reply, envelope.id, a2aFailure('InvalidRequestError', envelope.invalid))
    const { id, method, params } = envelope
    const call = new CallContext(request, reply)
    try {
      const version = negotiateVersion(request, server)
      if (isV03Method(method)) {
        if (version === A2A_V03) return await serveV03(request, reply, envelope, call)
        // Where an absent version is taken as 1.0, only an explicit header selects 0.3.
        const v03 = server.a2aAssumeVersion ? `send A2A-Version: ${A2A_V03}` : 'send no A2A-Version header'
        const hint = `call ${V10_METHOD_OF[method]}, or ${v03} to speak 0.3`
        throw new SwitchboardError(
          'METHOD_NOT_FOUND',
          `method ${JSON.stringify(method)} is an A2A 0.3 method and this request is served as A2A ${version}: ${hint}`,
          { method },
        )
      }
      if (!Object.hasOwn(UNARY, method) && !Object.hasOwn(STREAMING, method)) {
        const name = JSON.stringify(method.slice(0, 80))
        return sendError(reply, id, a2aFailure('MethodNotFoundError', `method ${name} does not exist`))
      }
      assertVersion(request, server)
      const streaming = Object.hasOwn(STREAMING, method) ? STREAMING[method] : undefined
      if (streaming) {
        const items = await streaming(operationsOf(request), params, call)
        return sendStream(reply, id, items, V10_STREAM)
      }
      return sendResult(reply, id, await UNARY[method]!(operationsOf(request), params, call))
    } catch (error) {
      return sendError(reply, id, toA2aFailure(error), 200, method)
    }
  })
}
