import { readFileSync } from 'node:fs'
import type { NotificationConfig } from '../agent/define.ts'

/** The optional JSON config file (`--config` / SWITCHBOARD_CONFIG). Flags and environment win over it. */
export interface FileConfig {
  port?: number
  host?: string
  publicUrl?: string
  dataDir?: string
  store?: string
  defaultAgent?: string
  /** Clawpedia notification targets: per agent slug, or "*" for every agent. */
  notifications?: Record<string, { endpoint_url: string; auth_header?: string }>
  outboundAllow?: string[]
  pushSigningSecret?: string
  /** Tasks one replica runs at once (all agents), and per agent slug; see docs/deployment.md. */
  concurrency?: number
  agentConcurrency?: Record<string, number>
  /** Execution lease duration and admission poll interval, in milliseconds. */
  leaseMs?: number
  pgPoolSize?: number
  pollMs?: number
  shutdownGraceMs?: number
  /** How long an idempotency key dedupes, e.g. "24h" (see docs/a2a.md). */
  idempotencyWindow?: string
  /** A2A settings: `messageIdDedupe: false` for peers that reuse messageIds. */
  a2a?: { messageIdDedupe?: boolean }
  /** Push retry tuning (milliseconds and counts), see docs/push.md. */
  push?: {
    baseMs?: number
    capMs?: number
    maxAttempts?: number
    maxAgeMs?: number
    timeoutMs?: number
    concurrency?: number
  }
}

export const readConfigFile = (path: string | undefined): FileConfig => {
  if (!path) return {}
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(`cannot read the config file ${path}: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text) as FileConfig
  } catch (error) {
    throw new Error(`the config file ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

/** Per-agent notification targets from the file, with a global one (flags/environment) for every agent. */
export const notificationsFor = (
  slugs: readonly string[],
  file: FileConfig['notifications'],
  global: NotificationConfig | undefined,
): Record<string, NotificationConfig> => {
  const result: Record<string, NotificationConfig> = {}
  for (const slug of slugs) {
    const entry = file?.[slug] ?? file?.['*']
    const config = entry
      ? {
          endpointUrl: entry.endpoint_url,
          ...(entry.auth_header !== undefined && { authHeader: entry.auth_header }),
        }
      : global
    if (config) result[slug] = config
  }
  return result
}
