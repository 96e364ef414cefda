import type { FastifyInstance, FastifyRequest } from 'fastify'
import { callerOf, MountCallers, PUBLIC_ROUTE } from '../../web/caller.ts'
import { sendCard } from '../../web/card-cache.ts'
import type { AgentMount, ServerContext } from '../../web/context.ts'
import { JSONRPC_PATH, REST_PATH } from './card.ts'
import { type ExtensionNegotiation, NO_EXTENSIONS, negotiateExtensions } from './extensions.ts'
import { a2aJsonRpcRoutes } from './jsonrpc-routes.ts'
import { mountCards } from './mount-cards.ts'
import { A2aOperations } from './operations.ts'
import { a2aRestRoutes } from './rest-routes.ts'
import { a2aV03RestRoutes, V03_REST_PREFIX } from './v03-rest-routes.ts'
import { A2A_V03, type A2aWireVersion, isVersion10, requestedVersion } from './version.ts'
import { EXTENSIONS_HEADER, formatExtensions } from './wire/service-parameters.ts'
import { V03_EXTENSIONS_HEADER } from './wire/v03/shapes.ts'

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
  const agent = mount.agent.definition
  const slug = agent.slug
  const cards = mountCards(mount, server)
  const negotiated = new WeakMap<FastifyRequest, ExtensionNegotiation>()
  const operationsOf = (request: FastifyRequest, version?: A2aWireVersion) =>
    new A2aOperations({
      mount,
      server,
      cards,
      identity: callerOf(request),
      callers: new MountCallers(request, slug),
      extensions: negotiated.get(request) ?? NO_EXTENSIONS,
      v03: version === A2A_V03,
    })

  app.get('/.well-known/agent-card.json', PUBLIC_ROUTE, async (request, reply) => {
    const pure10 = requestedVersion(request) !== undefined && isVersion10(request, server)
    return sendCard(request, reply, await cards.public({ pure10 }), server.startedAt)
  })

  // Both bindings: the extensions a request activates are negotiated once, and echoed in the
  // response's A2A-Extensions whatever it answers (set on the raw response, so a stream's head,
  // written past fastify, has it too). A 0.3 client names them in X-A2A-Extensions, and gets the
  // echo there. An agent without extensions pays nothing for this.
  await app.register(async (bindings) => {
    if (agent.extensions?.length) {
      bindings.addHook('onRequest', (request, reply, done) => {
        const current = request.headers['a2a-extensions']
        const legacy = current === undefined ? request.headers['x-a2a-extensions'] : undefined
        const negotiation = negotiateExtensions(agent, current ?? legacy)
        negotiated.set(request, negotiation)
        if (negotiation.activated.length > 0) {
          const header = legacy === undefined ? EXTENSIONS_HEADER : V03_EXTENSIONS_HEADER
          reply.raw.setHeader(header, formatExtensions(negotiation.activated))
        }
        done()
      })
    }
    await bindings.register(a2aJsonRpcRoutes, { prefix: JSONRPC_PATH, operationsOf, server })
    await bindings.register(a2aRestRoutes, { prefix: REST_PATH, operationsOf, server })
    // A2A 0.3 over HTTP+JSON: `/v1/…` under the same interface URL, beside the 1.0 routes (not
    // inside them: their version check is 1.0's), for the requests negotiated as 0.3.
    await bindings.register(a2aV03RestRoutes, {
      prefix: `${REST_PATH}${V03_REST_PREFIX}`,
      operationsOf,
      server,
    })
  })
}
