import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SwitchboardError } from '../../model/errors.ts'
import { jsonText } from '../../model/json.ts'
import type { ServerContext } from '../../web/context.ts'
import { lastEventId } from '../../web/sse.ts'
import { restErrorBody, toA2aFailure } from './errors.ts'
import { responseType } from './media-type.ts'
import type { A2aOperations } from './operations.ts'
import { restAnswers, splitVerb } from './rest-answers.ts'
import { assertVersion } from './version.ts'
import { protoName } from './wire/read.ts'
import { A2A_CONTENT_TYPE } from './wire/shapes.ts'

type Query = Record<string, string | string[] | undefined>

/**
 * Query values arrive as strings; booleans are read from them here, numbers by the request check,
 * the rest left to validation. A parameter may be spelled by its JSON or its proto name
 * (`historyLength`, `history_length`): both are passed on as given, for the check to read as one.
 */
const fromQuery = (
  query: Query,
  fields: { ints?: string[]; bools?: string[]; strings?: string[] },
): object => {
  const out: Record<string, unknown> = {}
  const bools = new Set(fields.bools)
  for (const name of [...(fields.strings ?? []), ...(fields.ints ?? []), ...bools]) {
    for (const key of new Set([name, protoName(name)])) {
      const value = query[key]
      if (value === undefined) continue
      out[key] = bools.has(name) && (value === 'true' || value === 'false') ? value === 'true' : value
    }
  }
  return out
}

/**
 * A POST body is the whole request message; the path's ids are set on it, and win over the
 * body's under either name.
 */
const withPath = (body: unknown, path: Record<string, string>): object => {
  if (body === undefined || body === null) return path
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new SwitchboardError('INVALID_REQUEST', 'the body must be a JSON object (the A2A request message)')
  }
  const message: Record<string, unknown> = { ...body }
  for (const name of Object.keys(path)) delete message[protoName(name)]
  return Object.assign(message, path)
}

/**
 * The tenant of a tenant-prefixed route (`/{tenant}/tasks/…`, the proto's additional_bindings),
 * set on the request message like the path's ids; a route without the prefix leaves it as sent.
 */
const withTenant = (request: FastifyRequest, message: unknown): unknown => {
  const { tenant } = request.params as { tenant?: string }
  return tenant === undefined ? message : withPath(message, { tenant })
}

/**
 * The A2A HTTP+JSON binding (digest §4.3). Paths are relative to the interface URL; responses are
 * `application/a2a+json` or application/json, as the client sent or asked (`media-type.ts`); errors are google.rpc.Status
 * bodies with the §4.4 HTTP status. SubscribeToTask answers both POST (the spec) and GET (the proto).
 */
export const a2aRestRoutes = async (
  app: FastifyInstance,
  options: { operationsOf: (request: FastifyRequest) => A2aOperations; server: ServerContext },
) => {
  const { operationsOf: ops, server } = options

  // application/a2a+json (1.0.1) unless the client sent or asked for application/json (1.0.0).
  const typeOf = (reply: FastifyReply) => responseType(reply.request.headers, A2A_CONTENT_TYPE)
  const { send, sendFailure, stream, signalOf, noRoute } = restAnswers(server, {
    name: 'A2A',
    contentType: typeOf,
    errorStatus: (failure) => failure.httpStatus,
    errorBody: restErrorBody,
    encode: jsonText,
  })
  const subscribe = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const params = withTenant(request, { id })
    // serveStream ends the items when the client goes away: no signal to hold for the stream's life.
    return stream(reply, await ops(request).openSubscription(params, lastEventId(request)))
  }

  app.setErrorHandler((error, _request, reply) => sendFailure(reply, toA2aFailure(error)))
  app.setNotFoundHandler((request, reply) => sendFailure(reply, noRoute(request)))
  // A callback hook, not an async one: no promise per request for a check that never waits.
  app.addHook('preHandler', (request, _reply, done) => {
    try {
      assertVersion(request, server)
      done()
    } catch (error) {
      done(error as Error)
    }
  })

  // Every route twice: as is, and under a tenant prefix (digest §4.3, the proto's additional_bindings);
  // the operation checks the tenant. Query and body may carry `tenant` too; the path's wins.
  for (const base of ['', '/:tenant']) {
    type Params<P> = P & { tenant?: string }
    const query = (
      request: FastifyRequest<{ Querystring: Query }>,
      fields: Parameters<typeof fromQuery>[1],
    ) =>
      withTenant(
        request,
        fromQuery(request.query, { ...fields, strings: [...(fields.strings ?? []), 'tenant'] }),
      )

    app.post(`${base}/message::send`, async (request, reply) =>
      send(reply, await ops(request).sendMessage(withTenant(request, request.body), signalOf(reply))),
    )

    app.post(`${base}/message::stream`, async (request, reply) =>
      stream(reply, await ops(request).openMessageStream(withTenant(request, request.body), signalOf(reply))),
    )

    app.get<{ Querystring: Query }>(`${base}/tasks`, async (request, reply) => {
      const params = query(request, {
        strings: ['contextId', 'status', 'pageToken', 'statusTimestampAfter'],
        ints: ['pageSize', 'historyLength'],
        bools: ['includeArtifacts'],
      }) as { status?: unknown }
      // A numeric status (the enum number) is ProtoJSON too.
      if (typeof params.status === 'string' && /^\d+$/.test(params.status))
        params.status = Number(params.status)
      return send(reply, await ops(request).listTasks(params))
    })

    app.get<{ Params: Params<{ target: string }>; Querystring: Query }>(
      `${base}/tasks/:target`,
      async (request, reply) => {
        const { id, verb } = splitVerb(request.params.target)
        if (verb === 'subscribe') return subscribe(request, reply, id)
        if (verb !== undefined) return sendFailure(reply, noRoute(request))
        return send(
          reply,
          await ops(request).getTask(withPath(query(request, { ints: ['historyLength'] }), { id })),
        )
      },
    )

    app.post<{ Params: Params<{ target: string }> }>(`${base}/tasks/:target`, async (request, reply) => {
      const { id, verb } = splitVerb(request.params.target)
      if (verb === 'cancel')
        return send(reply, await ops(request).cancelTask(withTenant(request, withPath(request.body, { id }))))
      if (verb === 'subscribe') return subscribe(request, reply, id)
      return sendFailure(reply, noRoute(request))
    })

    app.post<{ Params: Params<{ taskId: string }> }>(
      `${base}/tasks/:taskId/pushNotificationConfigs`,
      async (request, reply) => {
        const params = withTenant(request, withPath(request.body, { taskId: request.params.taskId }))
        return send(reply, await ops(request).createPushConfig(params))
      },
    )

    app.get<{ Params: Params<{ taskId: string }>; Querystring: Query }>(
      `${base}/tasks/:taskId/pushNotificationConfigs`,
      async (request, reply) => {
        const params = withPath(query(request, { ints: ['pageSize'], strings: ['pageToken'] }), {
          taskId: request.params.taskId,
        })
        return send(reply, await ops(request).listPushConfigs(params))
      },
    )

    app.get<{ Params: Params<{ taskId: string; configId: string }>; Querystring: Query }>(
      `${base}/tasks/:taskId/pushNotificationConfigs/:configId`,
      async (request, reply) => {
        const { taskId, configId } = request.params
        return send(
          reply,
          await ops(request).getPushConfig(withPath(query(request, {}), { taskId, id: configId })),
        )
      },
    )

    app.delete<{ Params: Params<{ taskId: string; configId: string }>; Querystring: Query }>(
      `${base}/tasks/:taskId/pushNotificationConfigs/:configId`,
      async (request, reply) => {
        const { taskId, configId } = request.params
        await ops(request).deletePushConfig(withPath(query(request, {}), { taskId, id: configId }))
        return send(reply, {})
      },
    )

    app.get<{ Querystring: Query }>(`${base}/extendedAgentCard`, async (request, reply) =>
      send(reply, await ops(request).getExtendedCard(query(request, {}))),
    )
  }
}
