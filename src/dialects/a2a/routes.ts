import type { FastifyInstance, FastifyRequest } from 'fastify'
import { callerOf, MountCallers, PUBLIC_ROUTE } from '../../web/caller.ts'
import { sendCard } from '../../web/card-cache.ts'
import type { AgentMount, ServerContext } from '../../web/context.ts'
import { JSONRPC_PATH, REST_PATH } from './card.ts'
import { a2aJsonRpcRoutes } from './jsonrpc-routes.ts'
import { mountCards } from './mount-cards.ts'
import { A2aOperations } from './operations.ts'
import { a2aRestRoutes } from './rest-routes.ts'

/**
 * The A2A 1.0 dialect for one mounted agent: the public card at the well-known path (never
 * version-gated: a client reads it to learn which version to speak), and both bindings, each an
 * encapsulated plugin with its own error format, over one set of operations.
 */
export const a2aRoutes = async (
  app: FastifyInstance,
  options: { mount: AgentMount; server: ServerContext },
) => {
  const { mount, server } = options
  const slug = mount.agent.definition.slug
  const cards = mountCards(mount, server)
  const operationsOf = (request: FastifyRequest) =>
    new A2aOperations({
      mount,
      server,
      cards,
      identity: callerOf(request),
      callers: new MountCallers(request, slug),
    })

  app.get('/.well-known/agent-card.json', PUBLIC_ROUTE, async (request, reply) =>
    sendCard(request, reply, await cards.public(), server.startedAt),
  )

  await app.register(a2aJsonRpcRoutes, { prefix: JSONRPC_PATH, operationsOf, server })
  await app.register(a2aRestRoutes, { prefix: REST_PATH, operationsOf, server })
}
