import type { FastifyInstance } from 'fastify'
import type { AgentMount, ServerContext } from './context.ts'

/** Routes that belong to the server rather than to an agent: the agent directory and health. */
export const rootRoutes = async (
  app: FastifyInstance,
  options: { mounts: AgentMount[]; server: ServerContext },
) => {
  const { mounts, server } = options
  app.get('/agents', async () => ({
    agents: mounts.map((mount) => ({
      slug: mount.agent.definition.slug,
      agent_id: mount.agent.definition.id,
      display_name: mount.agent.definition.name,
      base_url: mount.baseUrl(),
      card_url: `${mount.baseUrl()}/agent-card.json`,
    })),
  }))

  app.get('/healthz', async () => ({
    status: 'ok',
    running_tasks: server.engine.runningCount,
    open_streams: server.heartbeats.size,
  }))
}
