import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { EngineLogger } from '../engine/logger.ts'
import { SwitchboardMetrics } from '../observability/metrics.ts'
import type { Tracer } from '../observability/tracing.ts'
import { requestTraceFields } from '../observability/tracing-http.ts'
import { agentOfPath, taskIdOfParams } from '../observability/tracing-operations.ts'
import type { Store } from '../store/contract.ts'
import type { ServerContext } from '../web/context.ts'
import { asSwitchboardError, errorBodyHandler } from '../web/errors.ts'
import type { Heartbeats } from '../web/sse.ts'
import { type AdminAccess, registerAdminAccess } from './admin-access.ts'
import { OpenTaskTally, observedStore, withTaskAgents } from './metrics-store.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire dialect serving the route (`a2a`, `clawpedia`): the open-streams gauge's label. */
    dialect?: string
  }
}

/** A request no route matched: one label value, never the raw URL (unbounded, and may carry ids). */
const UNMATCHED = 'unmatched'

/**
 * Request metrics and the access log: one line per request when it closes (a stream when it
 * ends), naming the route pattern, status, duration and principal. The hook listens for the
 * socket's `close`, not fastify's onResponse, so a stream the client dropped is counted too.
 */
export const registerRequestObservation = (
  app: FastifyInstance,
  options: {
    metrics: SwitchboardMetrics
    logger: Logger
    dialects: WeakMap<IncomingMessage, string>
    defaultAgent: string
  },
): void => {
  const { metrics, logger, dialects } = options
  /**
   * What each open response's `close` needs, kept beside it: one listener for all of them, as a
   * closure per request was kept, with its scope, for as long as a stream stayed open.
   */
  const observed = new WeakMap<ServerResponse, { request: FastifyRequest; started: number }>()
  const closed = function (this: ServerResponse): void {
    const observation = observed.get(this)
    if (!observation) return
    observed.delete(this)
    const { request, started } = observation
    const route = request.routeOptions.url ?? UNMATCHED
    const seconds = (performance.now() - started) / 1000
    const labels = { method: request.method, route, status: String(this.statusCode) }
    metrics.httpRequests.inc(labels)
    metrics.httpDuration.observe(labels, seconds)
    if (logger.isLevelEnabled('info'))
      logger.info(
        {
          method: request.method,
          route,
          status: this.statusCode,
          durationMs: Math.round(seconds * 1e4) / 10,
          ...(request.caller && { principal: request.caller.principal, tenant: request.caller.tenant }),
          ...(!this.writableFinished && { aborted: true }),
          ...agentAndTask(request, options.defaultAgent),
          ...requestTraceFields(request),
        },
        'request',
      )
  }
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config
    if (config?.dialect !== undefined) dialects.set(request.raw, config.dialect)
    observed.set(reply.raw, { request, started: performance.now() })
    // `on`, not `once`: a response closes once, and once() wraps the listener in three objects that
    // an open stream keeps for its whole life.
    reply.raw.on('close', closed)
    done()
  })
  app.addHook('onError', async (_request, _reply, error) => {
    metrics.handlerErrors.inc({ code: asSwitchboardError(error).code })
  })
}

/**
 * A dialect route's agent (its mount's prefix, or the default agent's unprefixed routes) and the
 * task its path names. A created task's id is in its `task created` line, of the same trace.
 */
const agentAndTask = (request: FastifyRequest, defaultAgent: string): { agent?: string; taskId?: string } => {
  const { config, url } = request.routeOptions
  if (config?.dialect === undefined || url === undefined) return {}
  const taskId = taskIdOfParams(request.params)
  return { agent: agentOfPath(url, defaultAgent), ...(taskId && { taskId }) }
}

/** Every open stream, by dialect: read from the server's heartbeat set at scrape time. */
export const openStreamsByDialect = (
  server: { heartbeats: Heartbeats },
  dialects: WeakMap<IncomingMessage, string>,
): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const stream of server.heartbeats.open()) {
    const dialect = dialects.get(stream.request) ?? 'other'
    counts.set(dialect, (counts.get(dialect) ?? 0) + 1)
  }
  return counts
}

/** `GET /metrics`: the Prometheus text, guarded exactly as the admin API is (registerAdminAccess). */
export const metricsRoutes = async (
  app: FastifyInstance,
  options: { server: ServerContext; access: AdminAccess; metrics: SwitchboardMetrics },
) => {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, ownAuthentication: true }
  })
  registerAdminAccess(app, options.access)
  app.setErrorHandler(errorBodyHandler(options.server.logger))
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await options.metrics.render()
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body)
  })
}

/** A dialect plugin whose routes carry `config.dialect` (an encapsulated wrapper: prefixes are kept). */
export const tagDialect =
  <Options extends object>(name: string, dialect: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> =>
  async (app, options) => {
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, dialect: name }
    })
    await app.register(dialect, options)
  }

export interface ServerMetrics {
  metrics: SwitchboardMetrics
  /** The store the engine and push worker write through, observed (metrics-store.ts). */
  observe(store: Store): Store
  /** The engine's logger: its task lines carry the task's agent besides its id. */
  engineLogger: EngineLogger
  /** Request metrics and the access log, on every route (call before the routes are registered). */
  observeRequests(app: FastifyInstance): void
  /** `GET /metrics`, behind the admin guard. */
  register(app: FastifyInstance, options: { server: ServerContext; access: AdminAccess }): Promise<void>
}

/** The metrics of one Switchboard instance: a registry of its own, fed by the server's own parts. */
export const serverMetrics = (options: {
  store: Pick<Store, 'countDeliveries' | 'listDeliveries' | 'backend'>
  logger: Logger
  heartbeats: Heartbeats
  /** Where the `task` spans go (a no-op tracer when tracing is off). */
  tracer: Tracer
  /** The agent of the unprefixed dialect routes, named on their access-log lines. */
  defaultAgent: string
}): ServerMetrics => {
  // A single-process store: every task runs here, so the waiting ones are known too.
  const tally = new OpenTaskTally({ trackWaiting: options.store.backend !== 'postgres' })
  const dialects = new WeakMap<IncomingMessage, string>()
  const metrics = new SwitchboardMetrics({
    store: options.store,
    openTasks: () => tally.counts(),
    openStreams: () => openStreamsByDialect(options, dialects),
  })
  return {
    metrics,
    observe: (store) =>
      observedStore(store, { metrics, tally, logger: options.logger, tracer: options.tracer }),
    engineLogger: withTaskAgents(options.logger, tally),
    observeRequests: (app) =>
      registerRequestObservation(app, {
        metrics,
        logger: options.logger,
        dialects,
        defaultAgent: options.defaultAgent,
      }),
    register: async (app, routeOptions) => {
      await app.register(metricsRoutes, { ...routeOptions, metrics })
    },
  }
}
