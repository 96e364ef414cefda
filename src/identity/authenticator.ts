import type { IncomingHttpHeaders } from 'node:http'
import type { PeerCertificate } from 'node:tls'
import type { CallerIdentity } from '../model/caller.ts'
import type { JsonObject } from '../model/events.ts'

/** What a request offers to prove who sent it. */
export interface Credentials {
  headers: IncomingHttpHeaders
  /** The client certificate the TLS layer verified against the configured CA, when there is one. */
  peerCertificate?: PeerCertificate
}

/**
 * One way of authenticating callers. `authenticate` answers:
 * - an identity: the request carries this kind of credential and it is valid;
 * - undefined: the request carries no credential of this kind (the next authenticator is asked);
 * - it throws UNAUTHENTICATED (`AuthenticationError`): the request carries this kind of credential
 *   and it is not valid (wrong, expired, revoked). Its message may say why; it never echoes the credential.
 */
export interface Authenticator {
  /** The scheme's name in the card's `securitySchemes` (e.g. `apiKey`, `bearer`, `mtls`). */
  readonly name: string
  /** The A2A 1.0 SecurityScheme this authenticator accepts, as the card declares it. */
  readonly securityScheme: JsonObject
  /** The `WWW-Authenticate` challenge of a 401, when the scheme has one (`Bearer realm="…"`). */
  readonly challenge?: string
  authenticate(credentials: Credentials): Promise<CallerIdentity | undefined>
  close?(): Promise<void>
}

/** The bearer token of an `Authorization: Bearer …` header, or undefined. */
export const bearerToken = (headers: IncomingHttpHeaders): string | undefined => {
  const header = headers.authorization
  if (typeof header !== 'string') return undefined
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header)
  return match?.[1]
}
