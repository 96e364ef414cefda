import type { FastifyInstance } from 'fastify'
import { PUBLIC_ROUTE } from '../web/caller.ts'
import type { AgentMount, ServerContext } from '../web/context.ts'

/** How long /readyz waits for the task store before it answers 503. */
const READY_TIMEOUT_MS = 2_000

/**
 * Readiness, for /readyz and the gRPC health service: the task store answers within
 * READY_TIMEOUT_MS (rejects with its error, or with a timeout).
 */
export const pingStore = async (server: Pick<ServerContext, 'engine'>): Promise<void> => {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      server.engine.store.ping(),
      new Promise((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        )
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** Where a visitor of the root reads how to talk to the agents: paths in the Switchboard package, and the spec. */
const DOCS = {
  clawpedia: 'docs/clawpedia.md',
  a2a: 'docs/a2a.md',
  errors: 'docs/errors.md',
  a2a_specification: 'https://a2a-protocol.org/latest/specification/',
}

/** Routes that belong to the server rather than to an agent: the index, the agent directory, health. */
export const rootRoutes = async (
  app: FastifyInstance,
  options: { mounts: AgentMount[]; defaultSlug: string; server: ServerContext },
) => {
  const { mounts, defaultSlug, server } = options
  // base_url ends with '/': a client resolving the card path relative to it (the A2A SDK's
  // createFromUrl resolves ".well-known/agent-card.json") keeps the slug; without the slash the
  // last segment would be replaced.
  const directory = () =>
    mounts.map((mount) => ({
      slug: mount.agent.definition.slug,
      agent_id: mount.agent.definition.id,
      display_name: mount.agent.definition.name,
      base_url: `${mount.baseUrl()}/`,
      card_url: `${mount.baseUrl()}/agent-card.json`,
    }))
  app.get('/agents', PUBLIC_ROUTE, async () => ({ agents: directory() }))

  // The default agent is also served at the root, but `/` is none of its routes: a visitor (or a
  // client given the bare server URL) finds the agents, their cards and the docs here.
  app.get('/', PUBLIC_ROUTE, async () => {
    const base = server.publicUrl()
    return {
      service: 'switchboard',
      default_agent: defaultSlug,
      agents: directory().map((agent) => ({
        ...agent,
        a2a_card_url: `${agent.base_url}.well-known/agent-card.json`,
      })),
      links: { agents: `${base}/agents`, healthz: `${base}/healthz`, readyz: `${base}/readyz` },
      docs: DOCS,
    }
  })

  // Liveness: the process serves. It does not look at the database, so a database outage does not
  // get every replica restarted.
  app.get('/healthz', PUBLIC_ROUTE, async () => ({
    status: 'ok',
    running_tasks: server.engine.runningCount,
    open_streams: server.heartbeats.size,
  }))

  // Readiness: the task store answers within READY_TIMEOUT_MS; route traffic here only then.
  app.get('/readyz', PUBLIC_ROUTE, async (_request, reply) => {
    try {
      await pingStore(server)
      return { status: 'ready' }
    } catch (error) {
      if ((error as { code?: unknown }).code === 'STORAGE_FULL') {
        const { message } = error as Error
        server.logger.warn({ code: 'STORAGE_FULL' }, `not ready: ${message}`)
        return reply.code(503).send({ status: 'unavailable', error: { code: 'STORAGE_FULL', message } })
      }
      server.logger.warn({ err: error }, 'not ready: the task store did not answer')
      return reply.code(503).send({
        status: 'unavailable',
        error: { code: 'UNAVAILABLE', message: 'the task store did not answer; retry shortly' },
      })
    }
  })
}
