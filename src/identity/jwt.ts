import { decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose'
import type { CallerIdentity } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { Authenticator } from './authenticator.ts'
import { bearerToken } from './authenticator.ts'
import {
  DEFAULT_JWT_ALGORITHMS,
  JWT_ALGORITHMS,
  type JwtKeySource,
  JwtOptionError,
  keyLookupOf,
} from './jwt-keys.ts'

export { JwtOptionError }

export type JwtOptions = JwtKeySource & {
  /** The accepted `iss` (one or several). Required: a token from any issuer is a hole. */
  issuer: string | string[]
  /** The accepted `aud` (one or several). Required: a token minted for another service is not ours. */
  audience: string | string[]
  /** Accepted signing algorithms (default RS256, ES256, EdDSA); asymmetric ones only (see JWT_ALGORITHMS). */
  algorithms?: string[]
  /** The claim naming the principal (default `sub`). */
  principalClaim?: string
  /** The claim naming the tenant; without one every token's caller is in `tenant`. */
  tenantClaim?: string
  /** The tenant of every caller when there is no tenant claim (default `default`). */
  tenant?: string
  /** The claim holding the scopes (default: `scope`, a space-separated string, else `scp`, an array). */
  scopesClaim?: string
  /** Leeway for `exp` and `nbf` against clock skew, in seconds (default 30, at most 300). */
  clockToleranceSeconds?: number
}

export const MAX_CLOCK_TOLERANCE_SECONDS = 300

/** Three base64url segments (the signature may be empty, as in `alg: none`): the shape of a JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/**
 * The token's header when the bearer is a JWT. A bearer of another kind (an API key…) is not
 * this authenticator's to judge, so the next one is asked.
 */
const jwtHeaderOf = (token: string): { alg?: unknown } | undefined => {
  if (!COMPACT_JWS.test(token)) return undefined
  try {
    return decodeProtectedHeader(token)
  } catch {
    return undefined
  }
}

const refuse = (reason: string): SwitchboardError =>
  new SwitchboardError('UNAUTHENTICATED', `the JWT was refused: ${reason}`)

const CLAIM_REASONS: Record<string, string> = {
  iss: 'its issuer is not accepted',
  aud: 'its audience is not this server',
  nbf: 'it is not valid yet (nbf)',
  exp: 'it has no valid expiry (exp)',
}

/**
 * Why jose refused a token, in words that never quote the token. Anything unexpected (the JWKS
 * could not be fetched…) is rethrown: the authentication chain answers it as "could not be
 * checked" and keeps the cause for the log.
 */
const reasonOf = (error: unknown): string => {
  if (error instanceof errors.JWTExpired) return 'it has expired (exp)'
  if (error instanceof errors.JWTClaimValidationFailed)
    return CLAIM_REASONS[error.claim] ?? `its "${error.claim}" claim is not valid (${error.reason})`
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its signing algorithm is not accepted'
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature is not valid'
  if (error instanceof errors.JWKSNoMatchingKey) return 'no known key matches its key id (kid) and algorithm'
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'it is malformed'
  if (error instanceof errors.JOSENotSupported) return 'its algorithm or key type is not supported'
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'its signature is not valid'
  throw error
}

const stringClaim = (payload: JWTPayload, claim: string): string => {
  const value = payload[claim]
  if (typeof value === 'string' && value !== '') return value
  throw refuse(`its "${claim}" claim is missing or not a string`)
}

/** Scopes: a space-separated string (OAuth `scope`) or an array of strings (`scp`, `roles`…). */
const scopesIn = (value: unknown, claim: string): string[] => {
  if (value === undefined) return []
  if (typeof value === 'string') return value.split(' ').filter(Boolean)
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value
  throw refuse(`its "${claim}" claim is neither a string nor a list of strings`)
}

const checkOptions = (options: JwtOptions): { algorithms: string[]; clockTolerance: number } => {
  const empty = (v: string | string[]) => (Array.isArray(v) ? v.length === 0 || v.includes('') : !v)
  if (empty(options.issuer)) throw new JwtOptionError('issuer', 'JWT authentication needs an issuer')
  if (empty(options.audience)) throw new JwtOptionError('audience', 'JWT authentication needs an audience')
  const algorithms = options.algorithms ?? [...DEFAULT_JWT_ALGORITHMS]
  if (algorithms.length === 0) throw new JwtOptionError('algorithms', 'JWT authentication needs an algorithm')
  for (const alg of algorithms) {
    if (!(JWT_ALGORITHMS as readonly string[]).includes(alg))
      throw new JwtOptionError(
        'algorithms',
        `the JWT algorithm "${alg}" is not accepted: use one of ${JWT_ALGORITHMS.join(', ')}`,
      )
  }
  const clockTolerance = options.clockToleranceSeconds ?? 30
  if (!Number.isInteger(clockTolerance) || clockTolerance < 0 || clockTolerance > MAX_CLOCK_TOLERANCE_SECONDS)
    throw new JwtOptionError(
      'clockToleranceSeconds',
      `the JWT clock tolerance must be a whole number of seconds from 0 to ${MAX_CLOCK_TOLERANCE_SECONDS}`,
    )
  return { algorithms, clockTolerance }
}

/**
 * `Authorization: Bearer <jwt>`: signature, issuer, audience, expiry (required) and not-before are
 * checked; the verified claims become the caller (principal, tenant, scopes) and its `claims`.
 */
export const jwtAuthenticator = (options: JwtOptions): Authenticator => {
  const { algorithms, clockTolerance } = checkOptions(options)
  const keys: JWTVerifyGetKey = keyLookupOf(options)
  const principalClaim = options.principalClaim ?? 'sub'
  const verify = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms,
    clockTolerance,
    requiredClaims: ['exp'],
  }

  const identityOf = (payload: JWTPayload): CallerIdentity => {
    const scopes = options.scopesClaim
      ? scopesIn(payload[options.scopesClaim], options.scopesClaim)
      : payload.scope !== undefined
        ? scopesIn(payload.scope, 'scope')
        : scopesIn(payload.scp, 'scp')
    return {
      principal: stringClaim(payload, principalClaim),
      tenant: options.tenantClaim ? stringClaim(payload, options.tenantClaim) : (options.tenant ?? 'default'),
      scopes,
      method: 'jwt',
      claims: { ...payload },
    }
  }

  return {
    name: 'jwt',
    securityScheme: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    challenge: 'Bearer realm="switchboard"',
    async authenticate({ headers }) {
      const token = bearerToken(headers)
      if (token === undefined || !jwtHeaderOf(token)) return undefined
      let payload: JWTPayload
      try {
        ;({ payload } = await jwtVerify(token, keys, verify))
      } catch (error) {
        throw refuse(reasonOf(error))
      }
      return identityOf(payload)
    },
  }
}
