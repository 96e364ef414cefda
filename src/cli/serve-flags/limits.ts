import type { Command } from 'commander'
import type { LimitsOptions } from '../../server/limits.ts'
import { firstSet, type ServeFlagGroup } from './group.ts'

/** A whole number of at least 0 (0 turns the limit off), or the setting that gave it is named. */
const count = (name: string, value: unknown): number | undefined => {
  if (value === undefined || value === '') return undefined
  const n = typeof value === 'string' ? Number(value.trim().replace(/\/min$/, '')) : value
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number of at least 0 (0: off), got "${String(value)}"`)
  return n
}

/** Abuse limits per principal (docs/security/limits.md). */
export const limitsFlags: ServeFlagGroup = {
  register(command: Command) {
    command
      .option(
        '--rate-limit <n/min>',
        'requests per minute per principal, per replica; 0: off (env SWITCHBOARD_RATE_LIMIT; default: off on loopback, 600 elsewhere)',
      )
      .option(
        '--rate-burst <n>',
        'requests a principal may make at once above the rate (env SWITCHBOARD_RATE_BURST; default: a sixth of the rate)',
      )
      .option(
        '--max-open-tasks <n>',
        'non-terminal tasks per principal; 0: off (env SWITCHBOARD_MAX_OPEN_TASKS; default: off on loopback, 1000 elsewhere)',
      )
  },
  resolve({ flags, env, file }) {
    const section = (file.limits ?? {}) as Record<string, unknown>
    if (typeof section !== 'object' || Array.isArray(section))
      throw new Error('limits in the config file must be an object')
    const pick = (flag: string, variable: string, key: keyof LimitsOptions) => {
      const fromFlag = flags[flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]
      const name =
        fromFlag !== undefined ? `--${flag}` : env[variable] ? variable : `limits.${key} in the config file`
      return count(name, firstSet(fromFlag, env[variable], section[key]))
    }
    const limits: LimitsOptions = {}
    const requestsPerMinute = pick('rate-limit', 'SWITCHBOARD_RATE_LIMIT', 'requestsPerMinute')
    const burst = pick('rate-burst', 'SWITCHBOARD_RATE_BURST', 'burst')
    const openTasks = pick('max-open-tasks', 'SWITCHBOARD_MAX_OPEN_TASKS', 'openTasks')
    if (requestsPerMinute !== undefined) limits.requestsPerMinute = requestsPerMinute
    if (burst !== undefined) {
      if (burst < 1) throw new Error('--rate-burst must be at least 1')
      limits.burst = burst
    }
    if (openTasks !== undefined) limits.openTasks = openTasks
    return Object.keys(limits).length > 0 ? { limits } : {}
  },
}
