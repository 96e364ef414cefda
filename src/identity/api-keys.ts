import { hash, randomBytes } from 'node:crypto'
import type { CallerIdentity } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'
import { newId } from '../model/ids.ts'
import { nowIso } from '../model/time.ts'
import type { ApiKey, Store } from '../store/contract.ts'
import { type Authenticator, bearerToken, type Credentials } from './authenticator.ts'

/**
 * API keys: `sbk_<id>_<secret>`, the id (a UUID) to name the key in listings and logs, the secret
 * 32 random bytes in base64url. The key is shown once, when it is made; the store keeps only its
 * SHA-256. A fast hash is right here: the secret has 256 bits of entropy, so there is nothing to
 * guess that a slow hash would protect, and every request pays for the hash.
 */
export const API_KEY_PREFIX = 'sbk_'
const API_KEY = /^sbk_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/

/** What a key grants: the caller it authenticates as. */
export interface ApiKeyGrant {
  principal: string
  tenant: string
  scopes: string[]
  label?: string
}

/** SHA-256 of the whole key, hex: what the store keeps and looks a key up by (every request). */
export const hashApiKey = (key: string): string => hash('sha256', key, 'hex')

/** Makes a key and stores its hash. The key in the answer exists nowhere else: show it once. */
export const createApiKey = async (
  store: Store,
  grant: ApiKeyGrant,
): Promise<{ key: string; record: ApiKey }> => {
  const id = newId()
  const key = `${API_KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`
  const record: ApiKey = { id, ...grant, createdAt: nowIso() }
  await store.createApiKey({ ...record, hash: hashApiKey(key) })
  return { key, record }
}

export interface ApiKeyAuthenticatorOptions {
  store: Store
  /**
   * A header that carries the key by itself (e.g. `X-API-Key`). The card then declares it; keys
   * are accepted as `Authorization: Bearer sbk_…` either way.
   */
  header?: string
}

/** An HTTP field name (RFC 9110 token); Authorization is the bearer form, not a header of our own. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

/** Refuses a header name that cannot carry API keys, saying why. */
export const assertApiKeyHeader = (header: string): void => {
  if (!HEADER_NAME.test(header) || header.toLowerCase() === 'authorization')
    throw new TypeError(
      `the API key header must be an HTTP header name other than Authorization, got "${header}"`,
    )
}

/**
 * The API key authenticator. Every request looks its key up in the store (one read on a unique
 * index): nothing is cached, so a revoked key is refused from the next request on, on every replica.
 */
export const apiKeyAuthenticator = (options: ApiKeyAuthenticatorOptions): Authenticator => {
  const { store, header } = options
  if (header !== undefined) assertApiKeyHeader(header)
  const field = header?.toLowerCase()
  const description = 'A Switchboard API key (sbk_…), made with `switchboard keys create`'

  /** The key a request carries: in our own header, or as a bearer token of our prefix (a JWT is not ours). */
  const keyOf = (credentials: Credentials): string | undefined => {
    const value = field === undefined ? undefined : credentials.headers[field]
    if (value !== undefined) return Array.isArray(value) ? value.join(',') : value.trim()
    const token = bearerToken(credentials.headers)
    return token?.startsWith(API_KEY_PREFIX) ? token : undefined
  }

  return {
    name: 'apiKey',
    securityScheme:
      header === undefined
        ? { httpAuthSecurityScheme: { scheme: 'Bearer', description } }
        : { apiKeySecurityScheme: { location: 'header', name: header, description } },
    challenge: 'Bearer realm="switchboard"',
    async authenticate(credentials: Credentials): Promise<CallerIdentity | undefined> {
      const key = keyOf(credentials)
      if (key === undefined) return undefined
      // A malformed key is refused without a query; the message never repeats what was sent.
      const found = API_KEY.test(key) ? await store.findApiKey(hashApiKey(key)) : undefined
      if (!found) throw new SwitchboardError('UNAUTHENTICATED', 'unknown or revoked API key')
      return {
        principal: found.principal,
        tenant: found.tenant,
        scopes: found.scopes,
        method: 'api-key',
        claims: { key_id: found.id },
      }
    },
  }
}
