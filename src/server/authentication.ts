import type { TLSSocket } from 'node:tls'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { EngineLogger } from '../engine/logger.ts'
import { apiKeyAuthenticator } from '../identity/api-keys.ts'
import { type Authentication, authenticate, challengeOf } from '../identity/authenticate.ts'
import type { Authenticator, Credentials } from '../identity/authenticator.ts'
import { ANONYMOUS, type CallerIdentity } from '../model/caller.ts'
import type { Store } from '../store/contract.ts'
import { credentialHeaders, withoutCredentials } from './redaction.ts'

export interface IdentityOptions {
  /** How callers prove who they are, asked in order (API keys, JWT, mTLS; see docs/security.md). */
  authenticators?: Authenticator[]
  /**
   * API keys from the server's store (`switchboard keys create`), on when present: as
   * `Authorization: Bearer sbk_…`, and in `header` too when one is named. Asked first.
   */
  apiKeys?: { header?: string }
  /**
   * Serve requests that carry no credential as one anonymous caller. Default: only when there is
   * no authenticator (authentication off).
   */
  allowAnonymous?: boolean
}

/** The authentication stage's settings from the server options; API keys live in the server's store. */
export const authenticationOf = (options: IdentityOptions | undefined, store: Store): Authentication => {
  const authenticators = [
    ...(options?.apiKeys ? [apiKeyAuthenticator({ store, ...options.apiKeys })] : []),
    ...(options?.authenticators ?? []),
  ]
  const anonymous = options?.allowAnonymous ?? authenticators.length === 0
  return anonymous ? { authenticators, anonymous: ANONYMOUS } : { authenticators }
}

/** The client certificate of a TLS connection, when the TLS layer verified one. */
const credentialsOf = (request: FastifyRequest): Credentials => {
  const socket = request.raw.socket as Partial<TLSSocket>
  if (!socket.encrypted || !socket.authorized || typeof socket.getPeerCertificate !== 'function')
    return { headers: request.headers }
  const certificate = socket.getPeerCertificate()
  return certificate && Object.keys(certificate).length > 0
    ? { headers: request.headers, peerCertificate: certificate }
    : { headers: request.headers }
}

/** The caller of a request, by the server's authenticators. */
export const identify = (authentication: Authentication, request: FastifyRequest): Promise<CallerIdentity> =>
  authenticate(authentication, credentialsOf(request))

/**
 * The authentication stage: before any handler, every request that is not to a public route gets
 * its caller, or fails with UNAUTHENTICATED (401 with `WWW-Authenticate`) in the error shape of the
 * dialect whose route it reached — fastify hands a hook's error to that route's error handler.
 */
export const registerAuthentication = (
  app: FastifyInstance,
  authentication: Authentication,
  logger: EngineLogger,
): void => {
  const { anonymous } = authentication
  if (authentication.authenticators.length === 0 && anonymous) {
    // Authentication is off: one caller for everything, with no stage at all on the hot path.
    app.decorateRequest('caller', {
      getter: () => anonymous,
      setter() {
        throw new TypeError('authentication is off: the caller of every request is the anonymous one')
      },
    })
    return
  }
  app.decorateRequest('caller', undefined)
  const challenge = challengeOf(authentication)
  const headers = credentialHeaders(authentication.authenticators)
  app.addHook('onRequest', async (request, reply) => {
    const { config } = request.routeOptions
    if (config?.public === true || config?.ownAuthentication === true) return
    try {
      request.caller = await identify(authentication, request)
    } catch (error) {
      if (challenge) reply.header('www-authenticate', challenge)
      // A credential that could not be checked (the JWKS unreachable, the store down) is the
      // operator's problem, not the caller's: the caller sees a 401, the log says why.
      const cause = (error as { cause?: unknown }).cause
      if (cause !== undefined)
        logger.warn({ err: cause, url: request.url.split('?')[0] }, 'a credential could not be checked')
      throw withoutCredentials(error, request.headers, headers)
    }
  })
}
