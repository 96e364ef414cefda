import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { AgentDefinition } from '../agent/define.ts'
import { DEFAULTS } from '../server/defaults.ts'
import type { SwitchboardOptions } from '../server/server.ts'
import { notificationsFor, readConfigFile } from './config.ts'
import { loadAgents } from './load-agents.ts'
import { mergeOptions } from './serve-flags/group.ts'
import { SERVE_FLAG_GROUPS } from './serve-flags/index.ts'

interface ServeFlags {
  port?: string
  host?: string
  publicUrl?: string
  data?: string
  defaultAgent?: string
  config?: string
  notifyUrl?: string
  notifyAuth?: string
  store?: string
  pgPoolSize?: string
  allowOutbound?: string
  pushSecret?: string
  adminToken?: string
  concurrency?: string
  agentConcurrency?: string
  leaseMs?: string
  pollMs?: string
  shutdownGraceMs?: string
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/** A whole number of at least `min`, from a flag, the environment or the file; undefined when unset. */
const integer = (name: string, value: string | number | undefined, min = 1): number | undefined => {
  if (value === undefined || value === '') return undefined
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`${name} must be an integer of at least ${min}, got "${value}"`)
  return n
}

/** `slug=n,slug=n` (flag or environment) as per-agent limits; every slug must be a hosted agent. */
const agentLimits = (value: string | undefined): Record<string, string> | undefined => {
  if (value === undefined) return undefined
  const limits: Record<string, string> = {}
  for (const entry of list(value) ?? []) {
    const [slug, n = ''] = entry.split('=')
    // Checked with the file's limits in withLimits, so both fail the same way.
    limits[slug!.trim()] = n.trim() || `${entry} (no "=n")`
  }
  return limits
}

/**
 * Deployment limits override what an agent declares: the same agent may run two at a time on a
 * small replica and twenty on a large one. A slug naming no hosted agent is a typo, so it fails.
 */
const withLimits = (
  agents: AgentDefinition[],
  limits: Record<string, string | number> | undefined,
): AgentDefinition[] => {
  if (!limits) return agents
  for (const slug of Object.keys(limits)) {
    if (!agents.some((agent) => agent.slug === slug))
      throw new Error(`agent concurrency names "${slug}", which is not a hosted agent`)
  }
  return agents.map((agent) => {
    const limit = integer(`the concurrency of ${agent.slug}`, limits[agent.slug])
    return limit === undefined ? agent : { ...agent, concurrency: limit }
  })
}

export const serveCommand = (program: Command): void => {
  const command = program
    .command('serve')
    .description('start a Switchboard server (the demo agents when no agent modules are given)')
    .argument('[agents...]', 'modules exporting agents made with defineAgent()')
    .option('-p, --port <port>', `port to listen on (env PORT, default ${DEFAULTS.port})`)
    .option('--host <host>', `address to bind (env HOST, default ${DEFAULTS.host})`)
    .option('--public-url <url>', 'the URL clients reach this server at (env SWITCHBOARD_PUBLIC_URL)')
    .option('--data <dir>', `data directory for SQLite (env SWITCHBOARD_DATA, default ${DEFAULTS.dataDir})`)
    .option('--default-agent <slug>', 'agent also served at the root (env SWITCHBOARD_DEFAULT_AGENT)')
    .option('--config <file>', 'JSON config file (env SWITCHBOARD_CONFIG)')
    .option(
      '--notify-url <url>',
      'Clawpedia notification endpoint for every agent (env SWITCHBOARD_NOTIFY_URL)',
    )
    .option(
      '--notify-auth <header>',
      'header line sent with notifications, e.g. "Authorization: Bearer x" (env SWITCHBOARD_NOTIFY_AUTH)',
    )
    .option(
      '--store <url>',
      'postgres://… to run as one of several replicas (env SWITCHBOARD_STORE; default SQLite)',
    )
    .option(
      '--pg-pool-size <n>',
      'PostgreSQL connections this replica keeps, with a postgres:// store (env SWITCHBOARD_PG_POOL_SIZE, default 10)',
    )
    .option(
      '--allow-outbound <list>',
      'CIDRs or hosts that push and file fetches may reach besides public addresses (env SWITCHBOARD_OUTBOUND_ALLOW)',
    )
    .option(
      '--push-secret <secret>',
      'sign every notification with HMAC-SHA256 (env SWITCHBOARD_PUSH_SECRET)',
    )
    .option(
      '--admin-token <token>',
      'bearer token for /admin; without one only loopback clients may use it (env SWITCHBOARD_ADMIN_TOKEN)',
    )
    .option(
      '--concurrency <n>',
      'tasks this replica runs at once, all agents (env SWITCHBOARD_CONCURRENCY, default 64)',
    )
    .option(
      '--agent-concurrency <list>',
      'per-agent limits on this replica, e.g. "long-runner=2,csv-analyst=8" (env SWITCHBOARD_AGENT_CONCURRENCY)',
    )
    .option(
      '--lease-ms <ms>',
      'execution lease: how long a dead replica keeps its tasks before another takes them over (env SWITCHBOARD_LEASE_MS, default 30000)',
    )
    .option(
      '--poll-ms <ms>',
      'how often admission looks for expired leases and missed work (env SWITCHBOARD_POLL_MS, default 1000)',
    )
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM, how long running handlers may finish before they are interrupted (env SWITCHBOARD_SHUTDOWN_GRACE_MS, default 5000)',
    )
  for (const group of SERVE_FLAG_GROUPS) group.register(command)
  command
    .addHelpText(
      'after',
      `
Examples:
  switchboard serve                         # the demo agents on http://127.0.0.1:8080, data in ./data
  PORT=9000 switchboard serve ./my-agent.ts # your agents on port 9000
  switchboard serve --notify-url https://orchestrator.example/hooks --notify-auth "Authorization: Bearer s3cret"`,
    )
    .action(async (paths: string[], flags: ServeFlags) => {
      const env = process.env
      const file = readConfigFile(flags.config ?? env.SWITCHBOARD_CONFIG)
      const limits =
        agentLimits(flags.agentConcurrency ?? env.SWITCHBOARD_AGENT_CONCURRENCY) ?? file.agentConcurrency
      const agents = withLimits(await loadAgents(paths), limits)
      const notifyUrl = flags.notifyUrl ?? env.SWITCHBOARD_NOTIFY_URL
      const notifyAuth = flags.notifyAuth ?? env.SWITCHBOARD_NOTIFY_AUTH
      const global = notifyUrl
        ? { endpointUrl: notifyUrl, ...(notifyAuth && { authHeader: notifyAuth }) }
        : undefined
      const port = Number(flags.port ?? env.PORT ?? file.port ?? DEFAULTS.port)
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new Error(`invalid port "${flags.port ?? env.PORT}"`)
      const dataDir = flags.data ?? env.SWITCHBOARD_DATA ?? file.dataDir ?? DEFAULTS.dataDir
      const publicUrl = flags.publicUrl ?? env.SWITCHBOARD_PUBLIC_URL ?? file.publicUrl
      const defaultAgent = flags.defaultAgent ?? env.SWITCHBOARD_DEFAULT_AGENT ?? file.defaultAgent
      const store = flags.store ?? env.SWITCHBOARD_STORE ?? file.store
      const poolSize = integer(
        '--pg-pool-size',
        flags.pgPoolSize ?? env.SWITCHBOARD_PG_POOL_SIZE ?? file.pgPoolSize,
      )
      // A pool size without PostgreSQL is a mistake in the deployment, not something to ignore.
      if (poolSize !== undefined && !store?.startsWith('postgres'))
        throw new Error('--pg-pool-size needs a postgres:// store (--store or SWITCHBOARD_STORE)')
      const allow = list(flags.allowOutbound ?? env.SWITCHBOARD_OUTBOUND_ALLOW) ?? file.outboundAllow
      const signingSecret = flags.pushSecret ?? env.SWITCHBOARD_PUSH_SECRET ?? file.pushSigningSecret
      const adminToken = flags.adminToken ?? env.SWITCHBOARD_ADMIN_TOKEN
      const engine = {
        concurrency: integer(
          '--concurrency',
          flags.concurrency ?? env.SWITCHBOARD_CONCURRENCY ?? file.concurrency,
        ),
        // Heartbeats run every third of a lease, at most every 100 ms: a shorter lease could not be kept.
        leaseMs: integer('--lease-ms', flags.leaseMs ?? env.SWITCHBOARD_LEASE_MS ?? file.leaseMs, 300),
        pollMs: integer('--poll-ms', flags.pollMs ?? env.SWITCHBOARD_POLL_MS ?? file.pollMs, 10),
        shutdownGraceMs: integer(
          '--shutdown-grace-ms',
          flags.shutdownGraceMs ?? env.SWITCHBOARD_SHUTDOWN_GRACE_MS ?? file.shutdownGraceMs,
          0,
        ),
      }
      const sources = { flags: flags as Record<string, unknown>, env, file: file as Record<string, unknown> }
      const groups: Partial<SwitchboardOptions>[] = []
      for (const group of SERVE_FLAG_GROUPS) groups.push(await group.resolve(sources))
      const host = flags.host ?? env.HOST ?? file.host ?? DEFAULTS.host
      // A wildcard bind has no address clients can use; cards and links would say localhost.
      if (!publicUrl && (host === '0.0.0.0' || host === '::'))
        process.stderr.write(
          `switchboard: warning: listening on ${host} with no public URL, so cards and links advertise localhost; set --public-url (SWITCHBOARD_PUBLIC_URL) to the URL clients use\n`,
        )
      // Loaded here, not at the top: the client commands start without the server's dependencies.
      const { createSwitchboard } = await import('../server/server.ts')
      const merged = mergeOptions(groups)
      const switchboard = await createSwitchboard({
        ...merged,
        agents,
        port,
        host,
        dataDir,
        ...(publicUrl && { publicUrl }),
        ...(defaultAgent && { defaultAgent }),
        ...(store && { store }),
        ...(poolSize !== undefined && { postgres: { poolSize } }),
        ...(env.LOG_LEVEL && { logLevel: env.LOG_LEVEL }),
        ...(allow && { outbound: { allow } }),
        push: { ...file.push, ...(signingSecret && { signingSecret }) },
        ...(adminToken && { admin: { token: adminToken } }),
        engine: Object.fromEntries(Object.entries(engine).filter(([, value]) => value !== undefined)),
        notifications: notificationsFor(
          agents.map((a) => a.slug),
          file.notifications,
          global,
        ),
      })
      const url = await switchboard.listen()
      const lines = [
        `Switchboard listening on ${url}  (store: ${switchboard.store.backend === 'postgres' ? 'postgres' : `sqlite, data: ${resolve(dataDir)}`})`,
      ]
      const defaultSlug = defaultAgent ?? agents[0]!.slug
      for (const agent of agents) {
        const base = `${url}/agents/${agent.slug}`
        lines.push(
          `  ${agent.name.padEnd(26)} ${base}/agent-card.json${agent.slug === defaultSlug ? '   (default: also at /)' : ''}`,
        )
      }
      lines.push(`  Agent directory:           ${url}/agents`)
      if (merged.console !== false) lines.push(`  Operator console:          ${url}/console`)
      const grpc = switchboard.grpcAddress()
      if (grpc) lines.push(`  A2A gRPC (all agents):     ${grpc}   (tenant = the agent's slug)`)
      process.stdout.write(`${lines.join('\n')}\n`)
      let closing = false
      const shutdown = (signal: string): void => {
        if (closing) return
        closing = true
        process.stdout.write(`${signal}: shutting down\n`)
        switchboard.close().then(
          () => process.exit(0),
          () => process.exit(1),
        )
      }
      process.once('SIGINT', () => shutdown('SIGINT'))
      process.once('SIGTERM', () => shutdown('SIGTERM'))
    })
}
