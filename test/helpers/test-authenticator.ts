/** The test authenticators: each implements the real contract of src/identity/authenticator.ts. */
import type { IncomingHttpHeaders } from 'node:http'
import type { Authenticator, Credentials } from '../../src/identity/authenticator.ts'
import { bearerToken } from '../../src/identity/authenticator.ts'
import type { CallerIdentity } from '../../src/model/caller.ts'
import { SwitchboardError } from '../../src/model/errors.ts'

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * A test authenticator behind the real contract: bearer tokens and `X-API-Key` values from sets
 * the test changes as it goes (revoking a token is deleting it). Each credential is its own
 * principal, in one tenant; `seen` records every bearer token presented, valid or not.
 */
export class TestAuthenticator implements Authenticator {
  readonly name = 'test'
  readonly securityScheme = { httpAuthSecurityScheme: { scheme: 'Bearer' } }
  readonly challenge = 'Bearer realm="switchboard-test"'
  readonly tokens: Set<string>
  readonly apiKeys: Set<string>
  readonly seen: string[] = []

  constructor(options: { tokens?: string[]; apiKeys?: string[] } = {}) {
    this.tokens = new Set(options.tokens ?? ['good'])
    this.apiKeys = new Set(options.apiKeys ?? ['good'])
  }

  async authenticate(credentials: Credentials): Promise<CallerIdentity | undefined> {
    const token = bearerToken(credentials.headers)
    const key = header(credentials.headers, 'x-api-key')
    if (token !== undefined) {
      this.seen.push(token)
      if (!this.tokens.has(token))
        throw new SwitchboardError('UNAUTHENTICATED', 'the bearer token is not valid')
      return { principal: `bearer:${token}`, tenant: 'test', scopes: [], method: 'test' }
    }
    if (key !== undefined) {
      if (!this.apiKeys.has(key)) throw new SwitchboardError('UNAUTHENTICATED', 'the API key is not valid')
      return { principal: `key:${key}`, tenant: 'test', scopes: [], method: 'test' }
    }
    return undefined
  }
}

/**
 * The authenticator of the identity tests: `Authorization: Bearer test:<principal>:<tenant>:<scopes>`
 * (scopes comma-separated, may be empty) is that caller; any other bearer token is refused.
 */
export const testAuthenticator: Authenticator = {
  name: 'test',
  securityScheme: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
  challenge: 'Bearer realm="test"',
  async authenticate({ headers }) {
    const token = bearerToken(headers)
    if (token === undefined) return undefined
    const match = /^test:([^:]+):([^:]+):(.*)$/.exec(token)
    if (!match) throw new SwitchboardError('UNAUTHENTICATED', 'not a valid test token')
    const [, principal, tenant, scopes] = match as unknown as [string, string, string, string]
    return { principal, tenant, scopes: scopes === '' ? [] : scopes.split(','), method: 'test' }
  },
}

/** The Authorization header of a test caller. */
export const bearer = (principal: string, tenant: string, scopes: string[] = []): Record<string, string> => ({
  authorization: `Bearer test:${principal}:${tenant}:${scopes.join(',')}`,
})

/**
 * A test authenticator: `Authorization: Bearer <token>` names one of the given identities. The
 * real ones (API keys, JWT, mTLS) live in src/identity/; this one keeps tests free of key material.
 */
export const tokenAuthenticator = (identities: Record<string, CallerIdentity>): Authenticator => ({
  name: 'testBearer',
  securityScheme: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
  challenge: 'Bearer realm="switchboard-test"',
  async authenticate({ headers }) {
    const token = bearerToken(headers)
    if (token === undefined) return undefined
    const identity = identities[token]
    if (!identity) throw new SwitchboardError('UNAUTHENTICATED', 'unknown test token')
    return identity
  },
})
