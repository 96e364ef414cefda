import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerContext } from '../../web/context.ts'
import { disconnectSignal, lastEventId } from '../../web/sse.ts'
import { type A2aFailure, a2aFailure, jsonRpcError, toA2aFailure } from './errors.ts'
import type { A2aOperations } from './operations.ts'
import { serveStream } from './stream.ts'
import { assertVersion } from './version.ts'
import type { StreamItem } from './wire.ts'

type RpcId = string | number | null

interface CallContext {
  request: FastifyRequest
  /** Aborted when the client goes away; made on first use (GetTask never needs one). */
  readonly signal: AbortSignal
}

type Unary = (ops: A2aOperations, params: unknown, call: CallContext) => Promise<unknown> | unknown
type Streaming = (
  ops: A2aOperations,
  params: unknown,
  call: CallContext,
) => Promise<AsyncIterable<StreamItem>>

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
  SubscribeToTask: (ops, params, call) =>
    ops.openSubscription(params, lastEventId(call.request), call.signal),
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

interface Envelope {
  id: RpcId
  method: string
  params: unknown
}

/** A JSON-RPC 2.0 request, or the -32600 failure (with whatever id could be read) when it is not one. */
const readEnvelope = (body: unknown): Envelope | { id: RpcId; failure: A2aFailure } => {
  if (!isObject(body)) {
    const what = Array.isArray(body)
      ? 'batch requests are not supported'
      : 'the body must be a JSON-RPC request object'
    return { id: null, failure: a2aFailure('InvalidRequestError', what) }
  }
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null
  const invalid = (message: string) => ({ id, failure: a2aFailure('InvalidRequestError', message) })
  if (body.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"')
  if (!('id' in body))
    return invalid('id is required: A2A methods all answer, so notifications are not accepted')
  if (body.id !== null && typeof body.id !== 'string' && typeof body.id !== 'number')
    return invalid('id must be a string, a number or null')
  if (typeof body.method !== 'string' || body.method === '')
    return invalid('method must be a non-empty string')
  if (body.params !== undefined && !isObject(body.params)) return invalid('params must be an object')
  return { id, method: body.method, params: body.params ?? {} }
}

/**
 * The A2A JSON-RPC binding: one POST endpoint. Every answer is HTTP 200 — errors included, as the
 * JSON-RPC error object — except streams, which are SSE whose every event is a JSON-RPC success
 * response carrying the request id.
 */
export const a2aJsonRpcRoutes = async (
  app: FastifyInstance,
  options: { operations: A2aOperations; server: ServerContext },
) => {
  const { operations, server } = options

  const sendError = (reply: FastifyReply, id: RpcId, failure: A2aFailure, status = 200) => {
    if (failure.internal) server.logger.error({ err: failure.internal }, 'A2A JSON-RPC request failed')
    return reply
      .code(status)
      .type('application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id, error: jsonRpcError(failure) }))
  }

  // Reached only by what fails before the handler: malformed JSON (-32700), a body too large.
  app.setErrorHandler((error, _request, reply) => sendError(reply, null, toA2aFailure(error)))
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

  app.post('/', async (request, reply) => {
    const envelope = readEnvelope(request.body)
    if ('failure' in envelope) return sendError(reply, envelope.id, envelope.failure)
    const { id, method, params } = envelope
    let signal: AbortSignal | undefined
    const call: CallContext = {
      request,
      get signal() {
        signal ??= disconnectSignal(reply.raw)
        return signal
      },
    }
    try {
      assertVersion(request, server.a2aAssumeVersion)
      const streaming = Object.hasOwn(STREAMING, method) ? STREAMING[method] : undefined
      if (streaming) {
        const items = await streaming(operations, params, call)
        return serveStream({
          reply,
          server,
          items,
          encode: (item) => JSON.stringify({ jsonrpc: '2.0', id, result: item.response }),
          encodeError: (failure) => ({
            event: 'error',
            data: JSON.stringify({ jsonrpc: '2.0', id, error: jsonRpcError(failure) }),
          }),
        })
      }
      const unary = Object.hasOwn(UNARY, method) ? UNARY[method] : undefined
      if (!unary) {
        return sendError(
          reply,
          id,
          a2aFailure('MethodNotFoundError', `method ${JSON.stringify(method.slice(0, 80))} does not exist`),
        )
      }
      const result = await unary(operations, params, call)
      return reply.type('application/json').send(JSON.stringify({ jsonrpc: '2.0', id, result }))
    } catch (error) {
      return sendError(reply, id, toA2aFailure(error))
    }
  })
}
