import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'
import { jsonText } from '../../model/json.ts'
import { isTerminal, type TaskState } from '../../model/states.ts'
import type { ServerContext } from '../../web/context.ts'
import { lastEventId } from '../../web/sse.ts'
import { type A2aFailure, toA2aFailure } from './errors.ts'
import { v03JsonRpcError } from './jsonrpc-v03.ts'
import type { A2aOperations } from './operations.ts'
import { restAnswers, splitVerb } from './rest-answers.ts'
import { endsStream } from './stream.ts'
import { A2A_V03, type A2aWireVersion, negotiateVersion } from './version.ts'
import type { StreamResponse } from './wire/shapes.ts'
import { fromA2aState } from './wire/states.ts'
import { sendResponseToV03, streamResponseToV03, taskToV03 } from './wire/v03/rest-objects.ts'
import {
  cardToV03,
  createPushConfigFromV03,
  pushConfigToV03,
  sendRequestFromV03,
} from './wire/v03/rest-requests.ts'

/** Where the 0.3 routes live under the REST interface URL (the 0.3 proto's HTTP rules). */
export const V03_REST_PREFIX = '/v1'

/**
 * The route constraint that sends a request to the 0.3 routes: derived from `A2A-Version` by the
 * spec's rule (absent means 0.3, when the server serves it). A request it does not select (1.0, or
 * a version the server refuses) is routed as if these routes did not exist: to the 1.0 routes,
 * where `/v1/…` is the tenant-prefixed form with tenant "v1", and whose version check refuses
 * what is not 1.0 with VersionNotSupportedError.
 */
const VERSION_CONSTRAINT = 'a2aWireVersion'

/** A raw request's version, for the router (before fastify has parsed the query). */
const wireVersionOf = (req: IncomingMessage, server: ServerContext): string | undefined => {
  const url = req.url ?? ''
  const at = url.indexOf('?')
  const query = at < 0 ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1)))
  try {
    return negotiateVersion({ headers: req.headers, query } as unknown as FastifyRequest, server)
  } catch {
    return undefined
  }
}

/** Registered once per app (the router is shared by every mount; the server context is one). */
const addVersionConstraint = (app: FastifyInstance, server: ServerContext): void => {
  if (app.hasConstraintStrategy(VERSION_CONSTRAINT)) return
  app.addConstraintStrategy({
    name: VERSION_CONSTRAINT,
    storage() {
      const handlers = new Map<string, unknown>()
      return {
        get: (version: string) => (handlers.get(version) ?? null) as never,
        set: (version: string, store: unknown) => void handlers.set(version, store),
      }
    },
    deriveConstraint: (req: IncomingMessage) => wireVersionOf(req, server) as string,
    mustMatchWhenDerived: false,
  })
}

/**
 * The HTTP status of a 0.3 error: the A2A table's, except TaskNotCancelable, which sdk 0.3.14
 * answers 409 Conflict (the 0.3 spec names no statuses per error).
 */
const statusOf = (failure: A2aFailure): number =>
  failure.kind === 'TaskNotCancelableError' ? 409 : failure.httpStatus

/** A 0.3 resubscribe to a finished task gets the task and the end of the stream (the 0.3 proto's TaskSubscription). */
const isTerminalRefusal = (error: unknown): boolean =>
  isSwitchboardError(error) &&
  error.code === 'UNSUPPORTED_OPERATION' &&
  typeof error.details?.state === 'string' &&
  isTerminal(error.details.state as TaskState)

/** A status update after which the stream ends (stream.ts decides which) is the 0.3 `final` one. */
const isFinal = (response: StreamResponse): boolean => {
  if (!('statusUpdate' in response)) return false
  const state = fromA2aState(response.statusUpdate.status.state)
  return state !== undefined && endsStream(state)
}

/** A query integer as the proto reads it (0 is "unset"); anything else is a clear error. */
const historyLengthOf = (query: Record<string, unknown>): number | undefined => {
  const raw = query.historyLength ?? query.history_length
  if (raw === undefined || raw === '') return undefined
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new SwitchboardError('INVALID_REQUEST', 'historyLength must be a non-negative integer', {
      violations: [{ field: 'historyLength', description: 'must be a non-negative integer' }],
    })
  }
  return Number(raw) === 0 ? undefined : Number(raw)
}

/**
 * The A2A 0.3 HTTP+JSON binding under the REST interface URL (`/v1/…`): each request converted to
 * the 1.0 request message, served by the same operations, the answer converted back
 * (wire/v03/rest-*.ts). Bodies are application/json; errors are the 0.3 JSON-RPC error object
 * with the HTTP status of its kind; success statuses are sdk 0.3.14's (201 for a send and a new push
 * config, 202 for a cancel, 204 for a delete). A sibling of the 1.0 REST plugin, not a child:
 * the 1.0 version check must not apply here.
 */
export const a2aV03RestRoutes = async (
  app: FastifyInstance,
  options: {
    operationsOf: (request: FastifyRequest, version?: A2aWireVersion) => A2aOperations
    server: ServerContext
  },
) => {
  const { server } = options
  // Served as 0.3: push configs registered here get 0.3 webhook bodies.
  const ops = (request: FastifyRequest) => options.operationsOf(request, A2A_V03)
  addVersionConstraint(app, server)
  const only03: RouteShorthandOptions = { constraints: { [VERSION_CONSTRAINT]: A2A_V03 } }

  const { send, sendFailure, stream, signalOf, noRoute } = restAnswers(server, {
    name: 'A2A 0.3',
    contentType: () => 'application/json',
    errorStatus: statusOf,
    // What sdk 0.3.14's client reads: the 0.3 JSON-RPC error object, unwrapped (as over 0.3 JSON-RPC).
    errorBody: v03JsonRpcError,
    encode: (response) => jsonText(streamResponseToV03(response, isFinal(response))),
  })
  const subscribe = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const operations = ops(request)
    try {
      const items = await operations.openSubscription({ id }, lastEventId(request), signalOf(reply))
      return stream(reply, items)
    } catch (error) {
      if (!isTerminalRefusal(error)) throw error
      const task = await operations.getTask({ id })
      return stream(
        reply,
        (async function* () {
          yield { response: { task } }
        })(),
      )
    }
  }

  app.setErrorHandler((error, _request, reply) => sendFailure(reply, toA2aFailure(error)))

  app.post('/message::send', only03, async (request, reply) => {
    const answer = await ops(request).sendMessage(sendRequestFromV03(request.body), signalOf(reply))
    return send(reply, sendResponseToV03(answer), 201)
  })

  app.post('/message::stream', only03, async (request, reply) =>
    stream(reply, await ops(request).openMessageStream(sendRequestFromV03(request.body), signalOf(reply))),
  )

  app.get<{ Params: { target: string }; Querystring: Record<string, unknown> }>(
    '/tasks/:target',
    only03,
    async (request, reply) => {
      const { id, verb } = splitVerb(request.params.target)
      if (verb === 'subscribe') return subscribe(request, reply, id)
      if (verb !== undefined) return sendFailure(reply, noRoute(request))
      const historyLength = historyLengthOf(request.query)
      const task = await ops(request).getTask({ id, ...(historyLength !== undefined && { historyLength }) })
      return send(reply, taskToV03(task))
    },
  )

  app.post<{ Params: { target: string } }>('/tasks/:target', only03, async (request, reply) => {
    const { id, verb } = splitVerb(request.params.target)
    if (verb === 'cancel') return send(reply, taskToV03(await ops(request).cancelTask({ id })), 202)
    if (verb === 'subscribe') return subscribe(request, reply, id)
    return sendFailure(reply, noRoute(request))
  })

  app.post<{ Params: { taskId: string } }>(
    '/tasks/:taskId/pushNotificationConfigs',
    only03,
    async (request, reply) => {
      const params = createPushConfigFromV03(request.body, request.params.taskId)
      return send(reply, pushConfigToV03(await ops(request).createPushConfig(params)), 201)
    },
  )

  app.get<{ Params: { taskId: string } }>(
    '/tasks/:taskId/pushNotificationConfigs',
    only03,
    async (request, reply) => {
      const { configs } = await ops(request).listPushConfigs({ taskId: request.params.taskId })
      return send(reply, { configs: configs.map(pushConfigToV03) })
    },
  )

  app.get<{ Params: { taskId: string; configId: string } }>(
    '/tasks/:taskId/pushNotificationConfigs/:configId',
    only03,
    async (request, reply) => {
      const { taskId, configId } = request.params
      return send(reply, pushConfigToV03(await ops(request).getPushConfig({ taskId, id: configId })))
    },
  )

  app.delete<{ Params: { taskId: string; configId: string } }>(
    '/tasks/:taskId/pushNotificationConfigs/:configId',
    only03,
    async (request, reply) => {
      const { taskId, configId } = request.params
      await ops(request).deletePushConfig({ taskId, id: configId })
      return reply.code(204).send()
    },
  )

  app.get('/card', only03, async (request, reply) =>
    send(reply, cardToV03(await ops(request).getExtendedCard({}))),
  )
}
