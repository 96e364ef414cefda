import type { CallerIdentity } from '../model/caller.ts'
import { isSwitchboardError, SwitchboardError } from '../model/errors.ts'
import type { Authenticator, Credentials } from './authenticator.ts'

export interface Authentication {
  authenticators: readonly Authenticator[]
  /** The identity of a request with no credential at all; undefined: such a request is refused. */
  anonymous?: CallerIdentity
}

/**
 * The caller of one request: the first authenticator that recognises its credential decides.
 * A credential that one authenticator refuses is refused, even when a later one would accept a
 * different credential in the same request: a bad credential never falls back to anonymous.
 */
export const authenticate = async (
  authentication: Authentication,
  credentials: Credentials,
): Promise<CallerIdentity> => {
  for (const authenticator of authentication.authenticators) {
    let identity: CallerIdentity | undefined
    try {
      identity = await authenticator.authenticate(credentials)
    } catch (error) {
      if (isSwitchboardError(error) && error.code === 'UNAUTHENTICATED') throw error
      throw new SwitchboardError(
        'UNAUTHENTICATED',
        `the ${authenticator.name} credential could not be checked`,
        undefined,
        {
          cause: error,
        },
      )
    }
    if (identity) return identity
  }
  if (authentication.anonymous) return authentication.anonymous
  throw new SwitchboardError('UNAUTHENTICATED', 'this server needs credentials: none were sent')
}

/** The `WWW-Authenticate` header of a 401: each distinct challenge once (API keys and JWT share Bearer). */
export const challengeOf = (authentication: Authentication): string | undefined => {
  const challenges = new Set(authentication.authenticators.flatMap((a) => (a.challenge ? [a.challenge] : [])))
  return challenges.size > 0 ? [...challenges].join(', ') : undefined
}
