import type { Command } from 'commander'
import { firstSet, type ServeFlagGroup } from './group.ts'

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `30d`, `12h`, `45m`, `90s` in milliseconds; anything else is refused naming the setting. */
export const parseDuration = (name: string, value: unknown): number => {
  const match = typeof value === 'string' ? /^\s*(\d+)\s*([smhd])\s*$/.exec(value) : null
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : 0
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new Error(`${name} must be a duration such as 30d, 12h, 45m or 90s, got "${String(value)}"`)
  return ms
}

/** Retention of finished tasks (docs/deployment.md): off unless set. */
export const retentionFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--retention <duration>',
      'delete finished tasks (with their events, artifacts and deliveries) this long after they ended, e.g. 30d, 12h (env SWITCHBOARD_RETENTION; default: keep forever)',
    )
  },
  resolve({ flags, env, file }) {
    const value = firstSet(flags.retention, env.SWITCHBOARD_RETENTION, file.retention)
    if (value === undefined) return {}
    const name =
      flags.retention !== undefined
        ? '--retention'
        : env.SWITCHBOARD_RETENTION
          ? 'SWITCHBOARD_RETENTION'
          : 'retention in the config file'
    return { retention: { maxAgeMs: parseDuration(name, value) } }
  },
}
