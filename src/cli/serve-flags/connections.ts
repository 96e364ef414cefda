import type { Command } from 'commander'
import type { ConnectionOptions } from '../../server/connections.ts'
import { DEFAULTS } from '../../server/defaults.ts'
import { firstSet, type ServeFlagGroup, sectionOf } from './group.ts'

/** Each setting: its flag, environment variable and key of the config file's `connections` section. */
const SETTINGS: readonly { flag: string; env: string; key: keyof ConnectionOptions; help: string }[] = [
  {
    flag: 'headers-timeout-ms',
    env: 'SWITCHBOARD_HEADERS_TIMEOUT_MS',
    key: 'headersTimeoutMs',
    help: `time for a request's headers to arrive, else 408; 0: off (default ${DEFAULTS.headersTimeoutMs})`,
  },
  {
    flag: 'request-timeout-ms',
    env: 'SWITCHBOARD_REQUEST_TIMEOUT_MS',
    key: 'requestTimeoutMs',
    help: `time for a whole request (headers and body) to arrive, else 408; streams are not cut by it; 0: off (default ${DEFAULTS.requestTimeoutMs})`,
  },
  {
    flag: 'idle-timeout-ms',
    env: 'SWITCHBOARD_IDLE_TIMEOUT_MS',
    key: 'idleTimeoutMs',
    help: `how long an idle keep-alive connection stays open (default ${DEFAULTS.idleTimeoutMs})`,
  },
  {
    flag: 'max-connections',
    env: 'SWITCHBOARD_MAX_CONNECTIONS',
    key: 'maxConnections',
    help: `connections open at once; past it new ones are closed; 0: no cap (default ${DEFAULTS.maxConnections})`,
  },
]

/** Connection timeouts and the connection cap (docs/limits.md). */
export const connectionsFlags: ServeFlagGroup = {
  register(command: Command) {
    for (const { flag, env, help } of SETTINGS) command.option(`--${flag} <n>`, `${help} (env ${env})`)
  },
  resolve({ flags, env, file }) {
    const section = sectionOf(file, 'connections')
    const connections: ConnectionOptions = {}
    for (const { flag, env: variable, key } of SETTINGS) {
      const fromFlag = flags[flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]
      const value = firstSet(fromFlag, env[variable], section[key])
      if (value === undefined) continue
      const n = typeof value === 'string' ? Number(value.trim()) : value
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
        const name =
          fromFlag !== undefined
            ? `--${flag}`
            : env[variable]
              ? variable
              : `connections.${key} in the config file`
        throw new Error(`${name} must be a whole number of at least 0, got "${String(value)}"`)
      }
      connections[key] = n
    }
    return Object.keys(connections).length > 0 ? { connections } : {}
  },
}
