import { JwtOptionError, type JwtOptions, jwtAuthenticator } from '../../identity/jwt.ts'
import { JWT_ALGORITHMS } from '../../identity/jwt-keys.ts'
import {
  type FlagSources,
  firstSet,
  readSettingFile,
  type ServeFlagGroup,
  sectionOf,
  stringSetting,
} from './group.ts'

/** The settings, named as in the config file's `auth.jwt` section; flag and variable derive from the name. */
const SETTINGS = {
  jwksUrl: ['<url>', "the identity provider's JWKS URL (https; http only on loopback)"],
  keyFile: ['<file>', 'static verifying keys instead: a JWKS JSON file or a PEM public key or certificate'],
  issuer: ['<iss>', 'accepted token issuer(s), comma-separated (required with JWT)'],
  audience: ['<aud>', 'accepted audience(s), comma-separated (required with JWT)'],
  algorithms: ['<list>', `accepted algorithms (default RS256,ES256,EdDSA; of ${JWT_ALGORITHMS.join(',')})`],
  principalClaim: ['<claim>', 'claim naming the principal (default sub)'],
  tenantClaim: ['<claim>', 'claim naming the tenant (default: every caller in --jwt-tenant)'],
  tenant: ['<tenant>', 'the tenant of every JWT caller without --jwt-tenant-claim (default "default")'],
  scopesClaim: ['<claim>', 'claim holding the scopes (default: "scope" string, else "scp" list)'],
  clockTolerance: ['<seconds>', 'leeway for exp and nbf (default 30, at most 300)'],
} as const

type Setting = keyof typeof SETTINGS

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const flagOf = (name: Setting): string => `--jwt-${kebab(name)}`
const envOf = (name: Setting): string => `SWITCHBOARD_JWT_${kebab(name).replace(/-/g, '_').toUpperCase()}`
/** What commander calls the parsed flag: `--jwt-jwks-url` → `jwtJwksUrl`. */
const flagKeyOf = (name: Setting): string => `jwt${name[0]!.toUpperCase()}${name.slice(1)}`
const named = (name: Setting): string => `${flagOf(name)} (${envOf(name)}, auth.jwt.${name})`

/** The JwtOptions field an authenticator's complaint is about, back to the setting that fills it. */
const SETTING_OF_OPTION: Record<string, Setting> = {
  keys: 'keyFile',
  clockToleranceSeconds: 'clockTolerance',
}

const text = (name: Setting, value: unknown): string | undefined => stringSetting(named(name), value)

/** A comma-separated string (flag, environment) or a list of strings (file). */
const list = (name: Setting, value: unknown): string[] | undefined => {
  if (value === undefined) return undefined
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value
  throw new Error(`${named(name)} must be a comma-separated string or a list of strings`)
}

const seconds = (name: Setting, value: unknown): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (typeof value === 'boolean' || value === '' || !Number.isFinite(n))
    throw new Error(`${named(name)} must be a number of seconds, got "${value}"`)
  return n
}

/** `--jwt-*`: bearer JWTs verified against an identity provider's keys (docs/security/jwt.md). */
export const jwtFlags: ServeFlagGroup = {
  register(command) {
    for (const [name, [argument, help]] of Object.entries(SETTINGS) as [Setting, readonly [string, string]][])
      command.option(`${flagOf(name)} ${argument}`, `JWT: ${help} (env ${envOf(name)})`)
  },

  resolve({ flags, env, file }: FlagSources) {
    const section = sectionOf(file, 'auth', 'jwt')
    const value = (name: Setting): unknown =>
      firstSet(flags[flagKeyOf(name)], env[envOf(name)], section[name])
    const jwksUrl = text('jwksUrl', value('jwksUrl'))
    const keyFile = text('keyFile', value('keyFile'))
    const given = (Object.keys(SETTINGS) as Setting[]).filter((name) => value(name) !== undefined)
    if (jwksUrl === undefined && keyFile === undefined) {
      if (given.length > 0) throw new Error(`${flagOf(given[0]!)} needs --jwt-jwks-url or --jwt-key-file`)
      return {}
    }
    if (jwksUrl !== undefined && keyFile !== undefined)
      throw new Error('--jwt-jwks-url and --jwt-key-file exclude each other: give one source of keys')
    const issuer = list('issuer', value('issuer'))
    const audience = list('audience', value('audience'))
    // An unscoped check would accept any token the provider ever signed, for any service.
    if (!issuer?.length) throw new Error(`JWT authentication needs ${named('issuer')}`)
    if (!audience?.length) throw new Error(`JWT authentication needs ${named('audience')}`)
    const optional = {
      algorithms: list('algorithms', value('algorithms')),
      principalClaim: text('principalClaim', value('principalClaim')),
      tenantClaim: text('tenantClaim', value('tenantClaim')),
      tenant: text('tenant', value('tenant')),
      scopesClaim: text('scopesClaim', value('scopesClaim')),
      clockToleranceSeconds: seconds('clockTolerance', value('clockTolerance')),
    }
    const options = {
      ...(jwksUrl !== undefined ? { jwksUrl } : { keys: readSettingFile('--jwt-key-file', keyFile!) }),
      issuer,
      audience,
      ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    } as JwtOptions
    try {
      return { identity: { authenticators: [jwtAuthenticator(options)] } }
    } catch (error) {
      if (!(error instanceof JwtOptionError)) throw error
      const setting = SETTING_OF_OPTION[error.option] ?? (error.option as Setting)
      throw new Error(`${flagOf(setting)}: ${error.message}`)
    }
  },
}
