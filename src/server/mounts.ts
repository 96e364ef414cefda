import type { FastifyInstance } from 'fastify'
import { a2aRoutes } from '../dialects/a2a/routes.ts'
import { clawpediaRoutes } from '../dialects/clawpedia/routes.ts'
import type { AgentMount, ServerContext } from '../web/context.ts'
import { type AgentAccess, registerAgentAccess } from './access.ts'
import { tagDialect } from './metrics-route.ts'

/** Every wire dialect an agent is served in, each an encapsulated fastify plugin under the agent's base. */
const DIALECTS = [
  ['clawpedia', clawpediaRoutes],
  ['a2a', a2aRoutes],
] as const

/** Each mount (every agent under /agents/{slug}, the default one at the root) with its access rule and dialects. */
export const registerAgentMounts = async (
  app: FastifyInstance,
  options: { mounts: AgentMount[]; server: ServerContext; access: AgentAccess | undefined },
): Promise<void> => {
  for (const mount of options.mounts) {
    await app.register(
      async (scoped) => {
        registerAgentAccess(scoped, mount.agent.definition.slug, options.access)
        for (const [name, dialect] of DIALECTS)
          await scoped.register(tagDialect(name, dialect), { mount, server: options.server })
      },
      { prefix: mount.prefix },
    )
  }
}
