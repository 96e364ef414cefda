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
