import type { FastifyInstance } from 'fastify'
import { SwitchboardError } from '../model/errors.ts'
import type { Delivery, DeliveryState } from '../model/push.ts'
import { uuidParam } from '../web/body.ts'
import type { ServerContext } from '../web/context.ts'
import { errorBodyHandler } from '../web/errors.ts'
import { type AdminAccess, registerAdminAccess } from './admin-access.ts'

export interface AdminOptions {
  /**
   * When set, `Authorization: Bearer <token>` opens the admin API (as a credential with the `admin`
   * scope does). With neither a token nor authenticators, only loopback clients are served.
   */
  token?: string
}

const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'dead']

/** What an operator sees of a delivery: never the endpoint's credentials. */
const view = (delivery: Delivery) => ({
  id: delivery.id,
  task_id: delivery.taskId,
  seq: delivery.seq,
  config_id: delivery.configId,
  kind: delivery.target.kind,
  url: delivery.target.url,
  event: delivery.event.kind === 'status' ? `status:${delivery.event.state}` : delivery.event.kind,
  state: delivery.state,
  attempts: delivery.attempts,
  created_at: delivery.createdAt,
  next_attempt_at: delivery.nextAttemptAt,
  ...(delivery.lastError !== undefined && { last_error: delivery.lastError }),
  ...(delivery.deliveredAt !== undefined && { delivered_at: delivery.deliveredAt }),
})

/** The push outbox, for operators: list, inspect and retry deliveries; counts per state. */
export const adminRoutes = async (
  app: FastifyInstance,
  options: { server: ServerContext; access: AdminAccess },
) => {
  const { engine } = options.server

  // Every admin route is authenticated by the admin hook alone (see registerAdminAccess).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, ownAuthentication: true }
  })
  registerAdminAccess(app, options.access)

  app.setErrorHandler(errorBodyHandler(options.server.logger))

  app.get<{ Querystring: { state?: string; task_id?: string; limit?: string } }>(
    '/deliveries',
    async (request) => {
      const { state, task_id: taskId, limit } = request.query
      if (state !== undefined && !STATES.includes(state as DeliveryState)) {
        throw new SwitchboardError('INVALID_REQUEST', `state must be one of ${STATES.join(', ')}`)
      }
      const size = limit === undefined ? 50 : Number(limit)
      if (!Number.isInteger(size) || size < 1 || size > 500)
        throw new SwitchboardError('INVALID_REQUEST', 'limit must be 1–500')
      const deliveries = await engine.deliveries.list({
        limit: size,
        ...(state !== undefined && { state: state as DeliveryState }),
        ...(taskId !== undefined && { taskId: uuidParam(taskId, 'task_id') }),
      })
      return { deliveries: deliveries.map(view) }
    },
  )

  // The replica that answered, for the console's health page: behind a load balancer each call may
  // reach another, and the page lists every one it has seen.
  app.get('/replica', async () => ({
    replica_id: engine.replicaId,
    store: engine.store.backend,
    started_at: options.server.startedAt.toISOString(),
    running_tasks: engine.runningCount,
    open_streams: options.server.heartbeats.size,
  }))

  app.get('/deliveries/stats', async () => ({ counts: await engine.deliveries.count() }))

  app.get<{ Params: { id: string } }>('/deliveries/:id', async (request) =>
    view(await engine.deliveries.get(uuidParam(request.params.id, 'delivery id'))),
  )

  app.post<{ Params: { id: string } }>('/deliveries/:id/retry', async (request) =>
    view(await engine.deliveries.retry(uuidParam(request.params.id, 'delivery id'))),
  )
}
