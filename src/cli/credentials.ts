import { readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { ClientCredentials } from '../client/credentials.ts'
import { isObject } from '../model/json.ts'
import { UsageError } from './exit-codes.ts'

/** The credential flags of every command that talks to an agent. */
export interface CredentialFlags {
  token?: string
  apiKey?: string
  apiKeyHeader?: string
}

/** Where the per-origin credentials file is: SWITCHBOARD_CREDENTIALS, else the XDG config directory. */
const filePath = (env: NodeJS.ProcessEnv): { path: string; explicit: boolean } => {
  if (env.SWITCHBOARD_CREDENTIALS) return { path: env.SWITCHBOARD_CREDENTIALS, explicit: true }
  const config = env.XDG_CONFIG_HOME || join(homedir(), '.config')
  return { path: join(config, 'switchboard', 'credentials.json'), explicit: false }
}

/**
 * Reads the credentials file. Like ssh with a private key, it is refused when others may read it
 * (any group or world permission bit): a secret readable by every user of the machine is not one.
 */
const readFile = (env: NodeJS.ProcessEnv): Record<string, unknown> => {
  const { path, explicit } = filePath(env)
  let mode: number
  try {
    mode = statSync(path).mode
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new UsageError(`cannot read the credentials file ${path}: ${(error as Error).message}`)
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new UsageError(
      `the credentials file ${path} may be read by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    // The parser's message may quote the file, which holds secrets: only the position is kept.
    const where = /position \d+/.exec((error as Error).message)?.[0] ?? 'unreadable'
    throw new UsageError(`the credentials file ${path} is not valid JSON (${where})`)
  }
  if (!isObject(parsed)) throw new UsageError(`the credentials file ${path} must be a JSON object of origins`)
  return parsed
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== ''

/** One origin's entry, checked; errors name the origin and the field, never a value. */
const entryOf = (origin: string, entry: unknown): ClientCredentials => {
  const bad = (why: string) => new UsageError(`credentials file, entry "${origin}": ${why}`)
  if (!isObject(entry)) throw bad('must be an object')
  if ('bearer' in entry) {
    if (!nonEmpty(entry.bearer)) throw bad('"bearer" must be a non-empty string')
    return { bearer: entry.bearer }
  }
  if ('header' in entry) {
    if (!nonEmpty(entry.header) || !nonEmpty(entry.value))
      throw bad('"header" and "value" must be non-empty strings')
    return { header: entry.header, value: entry.value }
  }
  if ('oauth2' in entry) {
    const o = entry.oauth2
    if (!isObject(o) || !nonEmpty(o.tokenUrl) || !nonEmpty(o.clientId) || !nonEmpty(o.clientSecret))
      throw bad('"oauth2" needs tokenUrl, clientId and clientSecret')
    return {
      oauth2: {
        tokenUrl: o.tokenUrl,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        ...(nonEmpty(o.scope) && { scope: o.scope }),
        ...(nonEmpty(o.audience) && { audience: o.audience }),
      },
    }
  }
  throw bad('needs one of "bearer", "header" and "value", or "oauth2"')
}

const originOf = (value: string): string | undefined => {
  try {
    return new URL(value).origin
  } catch {
    return undefined
  }
}

/**
 * The credentials for an agent URL: `--token`, then `--api-key`, then SWITCHBOARD_TOKEN, then
 * the credentials file's entry for the URL's origin. Whichever is used, `connect` sends it to
 * that origin only.
 */
export const credentialsFor = (
  url: string,
  flags: CredentialFlags,
  env: NodeJS.ProcessEnv = process.env,
): ClientCredentials | undefined => {
  if (flags.token !== undefined && flags.apiKey !== undefined)
    throw new UsageError('give one of --token and --api-key, not both')
  if (flags.apiKeyHeader !== undefined && flags.apiKey === undefined)
    throw new UsageError('--api-key-header names the header of --api-key, which is missing')
  if (flags.token !== undefined) {
    if (flags.token === '') throw new UsageError('--token is empty')
    return { bearer: flags.token }
  }
  if (flags.apiKey !== undefined) {
    if (flags.apiKey === '') throw new UsageError('--api-key is empty')
    return { header: flags.apiKeyHeader ?? 'x-api-key', value: flags.apiKey }
  }
  if (env.SWITCHBOARD_TOKEN) return { bearer: env.SWITCHBOARD_TOKEN }
  const origin = originOf(url)
  const file = readFile(env)
  const key = Object.keys(file).find((entry) => originOf(entry) === origin)
  return key === undefined ? undefined : entryOf(key, file[key])
}
