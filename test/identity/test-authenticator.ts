import { type Authenticator, bearerToken } from '../../src/identity/authenticator.ts'
import { SwitchboardError } from '../../src/model/errors.ts'

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
