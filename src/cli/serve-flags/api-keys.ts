import { assertApiKeyHeader } from '../../identity/api-keys.ts'
import { isObject } from '../../model/json.ts'
import type { SwitchboardOptions } from '../../server/server.ts'
import { firstSet, type ServeFlagGroup } from './group.ts'

/** `SWITCHBOARD_API_KEYS`: 1/true turns API keys on, 0/false off (over the config file). */
const envSwitch = (value: string | undefined): boolean | undefined => {
  if (value === undefined || value === '') return undefined
  if (/^(1|true)$/i.test(value)) return true
  if (/^(0|false)$/i.test(value)) return false
  throw new Error(`SWITCHBOARD_API_KEYS (--api-keys) must be 1 or 0, got "${value}"`)
}

/** The config file's `auth.apiKeys`: true, false, or `{ "header": "X-API-Key" }`. */
const fileSetting = (file: Record<string, unknown>): { on?: boolean; header?: string } => {
  if (file.auth === undefined) return {}
  if (!isObject(file.auth)) throw new Error('auth in the config file must be an object')
  const value = file.auth.apiKeys
  if (value === undefined) return {}
  if (typeof value === 'boolean') return { on: value }
  if (isObject(value) && Object.keys(value).every((key) => key === 'header')) {
    if (value.header === undefined) return { on: true }
    if (typeof value.header === 'string') return { on: true, header: value.header }
  }
  throw new Error(
    'auth.apiKeys in the config file (--api-keys) must be true, false or { "header": "<name>" }',
  )
}

/**
 * `--api-keys` and `--api-key-header`: API keys (switchboard keys create) from the server's store.
 * Naming a header turns them on too.
 */
export const apiKeyFlags: ServeFlagGroup = {
  register(command) {
    command
      .option(
        '--api-keys',
        'require API keys made with `switchboard keys create`, sent as "Authorization: Bearer sbk_…" (env SWITCHBOARD_API_KEYS=1)',
      )
      .option(
        '--api-key-header <name>',
        'also take API keys in this header, e.g. X-API-Key; implies --api-keys (env SWITCHBOARD_API_KEY_HEADER)',
      )
  },
  resolve({ flags, env, file }): Partial<SwitchboardOptions> {
    const fromFile = fileSetting(file)
    const header = firstSet(
      flags.apiKeyHeader as string | undefined,
      env.SWITCHBOARD_API_KEY_HEADER,
      fromFile.header,
    )
    const on = firstSet(
      flags.apiKeys === true ? true : undefined,
      envSwitch(env.SWITCHBOARD_API_KEYS),
      fromFile.on,
    )
    if (header === undefined) return on ? { identity: { apiKeys: {} } } : {}
    try {
      assertApiKeyHeader(header)
    } catch (error) {
      throw new Error(`--api-key-header: ${(error as Error).message}`)
    }
    return { identity: { apiKeys: { header } } }
  },
}
