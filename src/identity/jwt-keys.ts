import { createPublicKey, type KeyObject } from 'node:crypto'
import { isIP } from 'node:net'
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'

/**
 * The algorithms a JWT may be signed with: asymmetric only. `none` would accept any token, and the
 * HMAC family (HS256…) needs the verifying secret on every verifier, so anyone who can verify can
 * also mint tokens — and a JWKS or PEM public key is exactly what algorithm confusion (HS256
 * "signed" with the public key) abuses. Neither is offered.
 */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const

/** A bad JWT setting; `option` names it (as in JwtOptions) so the CLI can name its flag. */
export class JwtOptionError extends TypeError {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message)
    this.name = 'JwtOptionError'
  }
}

export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'EdDSA']

/** Where the verifying keys come from: an identity provider's JWKS URL, or keys given in full. */
export type JwtKeySource =
  | {
      jwksUrl: string
      /** How long one JWKS fetch may take (default 5000 ms). */
      jwksTimeoutMs?: number
      /**
       * The least time between two fetches caused by a token whose `kid` the cached set does not
       * know (default 30000 ms): a stream of made-up `kid`s costs at most one fetch per period.
       */
      jwksCooldownMs?: number
    }
  /** A JWKS document (object or JSON text) or a PEM public key or certificate. */
  | { keys: JSONWebKeySet | string }

const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

/**
 * The JWKS URL, checked: https, or http to a loopback address (an identity provider on the same
 * machine). Keys fetched in clear text over a network could be replaced by anyone on the path.
 */
const jwksUrlOf = (value: string): URL => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new JwtOptionError('jwksUrl', `the JWKS URL "${value}" is not a URL`)
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url
  throw new JwtOptionError('jwksUrl', `the JWKS URL must use https (http only on loopback), got "${value}"`)
}

const isKeySet = (value: unknown): value is JSONWebKeySet =>
  typeof value === 'object' && value !== null && Array.isArray((value as JSONWebKeySet).keys)

const localSet = (keys: JSONWebKeySet): JWTVerifyGetKey => {
  try {
    return createLocalJWKSet(keys)
  } catch (error) {
    throw new JwtOptionError('keys', `the JWT keys are not a valid JWKS: ${(error as Error).message}`)
  }
}

/** Static keys as a key lookup: a JWKS selects by `kid` and algorithm; a PEM key is the one key. */
const staticKeys = (keys: JSONWebKeySet | string): JWTVerifyGetKey => {
  if (isKeySet(keys)) return localSet(keys)
  const text = keys.trim()
  if (text.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new JwtOptionError('keys', `the JWT keys are not valid JSON: ${(error as Error).message}`)
    }
    if (!isKeySet(parsed))
      throw new JwtOptionError('keys', 'the JWT keys are JSON but not a JWKS ({"keys": […]})')
    return localSet(parsed)
  }
  if (!text.startsWith('-----BEGIN'))
    throw new JwtOptionError('keys', 'the JWT keys are neither a JWKS nor a PEM key')
  // A public key or a certificate. A private key would also yield its public half, but it means
  // the operator copied the wrong file (and a signing key now sits on the verifier), so it is refused.
  if (/PRIVATE KEY-----/.test(text))
    throw new JwtOptionError('keys', 'the JWT keys hold a private key: give the public key or a certificate')
  let key: KeyObject
  try {
    key = createPublicKey(text)
  } catch (error) {
    throw new JwtOptionError('keys', `the JWT key is not a valid PEM public key: ${(error as Error).message}`)
  }
  return async () => key
}

/** The key lookup `jwtVerify` uses for a key source. */
export const keyLookupOf = (source: JwtKeySource): JWTVerifyGetKey => {
  if ('keys' in source) return staticKeys(source.keys)
  return createRemoteJWKSet(jwksUrlOf(source.jwksUrl), {
    timeoutDuration: source.jwksTimeoutMs ?? 5_000,
    cooldownDuration: source.jwksCooldownMs ?? 30_000,
  })
}
