import { type Authenticator, bearerToken } from '../../src/identity/authenticator.ts'
import type { CallerIdentity } from '../../src/model/caller.ts'
import { SwitchboardError } from '../../src/model/errors.ts'

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
