import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Command } from 'commander'
import type { AgentDefinition } from '../agent/define.ts'
import { demoAgents } from '../demo/index.ts'
import { createSwitchboard, DEFAULTS } from '../http/server.ts'
import { notificationsFor, readConfigFile } from './config.ts'

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
  allowOutbound?: string
  pushSecret?: string
  adminToken?: string
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/** Loads agent modules: every export that is an agent definition (has a slug and a handler). */
const loadAgents = async (paths: string[]): Promise<AgentDefinition[]> => {
  if (paths.length === 0) return demoAgents
  const agents: AgentDefinition[] = []
  for (const path of paths) {
    const module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>
    for (const value of Object.values(module)) {
      const candidate = value as Partial<AgentDefinition> | undefined
      if (
        candidate &&
        typeof candidate === 'object' &&
        typeof candidate.handler === 'function' &&
        candidate.slug
      ) {
        agents.push(candidate as AgentDefinition)
      }
    }
  }
  if (agents.length === 0) throw new Error(`no agent definitions exported by ${paths.join(', ')}`)
  return agents
}

export const serveCommand = (program: Command): void => {
  program
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
      const agents = await loadAgents(paths)
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
      const allow = list(flags.allowOutbound ?? env.SWITCHBOARD_OUTBOUND_ALLOW) ?? file.outboundAllow
      const signingSecret = flags.pushSecret ?? env.SWITCHBOARD_PUSH_SECRET ?? file.pushSigningSecret
      const adminToken = flags.adminToken ?? env.SWITCHBOARD_ADMIN_TOKEN
      const switchboard = await createSwitchboard({
        agents,
        port,
        host: flags.host ?? env.HOST ?? file.host ?? DEFAULTS.host,
        dataDir,
        ...(publicUrl && { publicUrl }),
        ...(defaultAgent && { defaultAgent }),
        ...(store && { store }),
        ...(allow && { outbound: { allow } }),
        push: { ...file.push, ...(signingSecret && { signingSecret }) },
        ...(adminToken && { admin: { token: adminToken } }),
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
