import type { AccessRule, AgentAccess } from '../../server/access.ts'
import { type FlagSources, firstSet, type ServeFlagGroup } from './group.ts'

const FIELDS = ['principals', 'scopes', 'tenants'] as const

/**
 * Per-agent access: who may call which hosted agent. Usually the config file's `access` section
 * (`{ "<slug>" | "*": { "principals"?: [...], "scopes"?: [...], "tenants"?: [...] } }`); the same
 * JSON may be given as `--access` or SWITCHBOARD_ACCESS, which replaces the file's section whole.
 */
export const accessFlags: ServeFlagGroup = {
  register(command) {
    command.option(
      '--access <json>',
      'who may call which agent, as JSON {"<slug>|*": {"principals": [], "scopes": [], "tenants": []}} (env SWITCHBOARD_ACCESS; config file: access)',
    )
  },
  resolve({ flags, env, file }: FlagSources) {
    const text = firstSet(flags.access as string | undefined, env.SWITCHBOARD_ACCESS)
    const where = text === undefined ? 'the config file section access' : '--access'
    let value: unknown = file.access
    if (text !== undefined) {
      try {
        value = JSON.parse(text)
      } catch (error) {
        throw new Error(`--access is not valid JSON: ${(error as Error).message}`)
      }
    }
    return value === undefined ? {} : { access: checkAccess(value, where) }
  },
}

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')

const checkAccess = (value: unknown, where: string): AgentAccess => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where} must be an object of rules by agent slug (or "*")`)
  const access: AgentAccess = {}
  for (const [slug, rule] of Object.entries(value)) {
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule))
      throw new Error(`${where}: the rule of ${slug} must be an object`)
    const checked: AccessRule = {}
    for (const [field, list] of Object.entries(rule)) {
      if (!(FIELDS as readonly string[]).includes(field))
        throw new Error(`${where}: the rule of ${slug} has an unknown field ${field} (${FIELDS.join(', ')})`)
      if (!isStringList(list))
        throw new Error(`${where}: ${slug}.${field} must be a list of non-empty strings`)
      checked[field as (typeof FIELDS)[number]] = list
    }
    access[slug] = checked
  }
  return access
}
