import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { SwitchboardOptions } from '../../server/server.ts'

/** What a flag group resolves from: the parsed flags, the environment and the config file. */
export interface FlagSources {
  flags: Record<string, unknown>
  env: NodeJS.ProcessEnv
  /** The whole config file: each group reads (and checks) its own section. */
  file: Record<string, unknown>
}

/**
 * The `serve` settings of one concern (API keys, JWT, TLS, …): its flags, and how they become
 * server options. Flags win over environment variables, which win over the config file. A group
 * refuses a bad value with an Error whose message names the flag.
 */
export interface ServeFlagGroup {
  register(command: Command): void
  resolve(sources: FlagSources): Partial<SwitchboardOptions> | Promise<Partial<SwitchboardOptions>>
}

/** The first value that is set: flag, then environment, then file. */
export const firstSet = <T>(...values: (T | undefined)[]): T | undefined =>
  values.find((v) => v !== undefined && v !== '')

/** `on`/`off` (also true/false, 1/0, yes/no) from a flag or the environment; a boolean from the file. */
export const onOff = (name: string, value: unknown): boolean => {
  if (typeof value === 'boolean') return value
  const text = typeof value === 'string' ? value.trim().toLowerCase() : ''
  if (['on', 'true', '1', 'yes'].includes(text)) return true
  if (['off', 'false', '0', 'no'].includes(text)) return false
  throw new Error(`${name} must be on or off, got "${String(value)}"`)
}

/** Where a setting came from, for the error that refuses it. */
export const nameOf = (
  flag: unknown,
  flagName: string,
  env: string | undefined,
  envName: string,
  key: string,
) => (flag !== undefined ? flagName : env ? envName : `${key} in the config file`)

/** A section of the config file (`auth.jwt`): an object, or empty when absent. */
export const sectionOf = (file: Record<string, unknown>, ...path: string[]): Record<string, unknown> => {
  let section: unknown = file
  for (const key of path) {
    section = (section as Record<string, unknown>)[key]
    if (section === undefined) return {}
    if (!isPlainObject(section)) throw new Error(`the config file's "${path.join('.')}" must be an object`)
  }
  return section as Record<string, unknown>
}

/** A setting that must be a string when set (the file could hold anything); `name` names it. */
export const stringSetting = (name: string, value: unknown): string | undefined => {
  if (value === undefined || typeof value === 'string') return value
  throw new Error(`${name} must be a string`)
}

/** The text of a file a setting names (a key, a certificate), or an Error naming the flag. */
export const readSettingFile = (flag: string, path: string): string => {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(`${flag}: cannot read ${path}: ${(error as Error).message}`)
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype

/**
 * The groups' options as one: sections two groups both fill (`identity`) are merged, and lists in
 * them (authenticators) are concatenated in group order.
 */
export const mergeOptions = (parts: readonly Partial<SwitchboardOptions>[]): Partial<SwitchboardOptions> => {
  const merged: Record<string, unknown> = {}
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      const existing = merged[key]
      if (isPlainObject(existing) && isPlainObject(value)) {
        const section: Record<string, unknown> = { ...existing }
        for (const [name, inner] of Object.entries(value)) {
          const before = section[name]
          section[name] = Array.isArray(before) && Array.isArray(inner) ? [...before, ...inner] : inner
        }
        merged[key] = section
      } else merged[key] = value
    }
  }
  return merged as Partial<SwitchboardOptions>
}
