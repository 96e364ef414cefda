import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type Authentication, challengeOf } from '../identity/authenticate.ts'
import { type CallerIdentity, hasScope, SCOPES } from '../model/caller.ts'
import { isSwitchboardError, SwitchboardError } from '../model/errors.ts'
import { identify } from './authentication.ts'

export interface AdminAccess {
  /** The admin token (`--admin-token`): `Authorization: Bearer <token>` opens the admin API. */
  token?: string
  /** The server's authenticators: a caller with the `admin` scope opens the admin API too. */
  authentication: Authentication
  /** The server's own origin, the one cross-site check accepts besides the request's Host. */
  publicUrl: () => string
}

const ADMIN_CHALLENGE = 'Bearer realm="switchboard-admin"'

const isLoopbackAddress = (ip: string | undefined): boolean =>
  ip !== undefined && (ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.'))

/** `localhost`, `127.0.0.1:8080`, `[::1]:8080`: a name a DNS-rebinding page cannot make the browser send. */
const isLoopbackHost = (host: string | undefined): boolean => {
  if (host === undefined) return false
  const name = host
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1')
  return name === 'localhost' || isLoopbackAddress(name)
}

/** Headers a proxy adds: a request carrying one came from somewhere else, whatever the socket says. */
const FORWARDED = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const

const tokenMatches = (header: string | undefined, token: string): boolean => {
  const expected = Buffer.from(`Bearer ${token}`)
  const given = Buffer.from(header ?? '')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * A state-changing request a browser sent from another site (CSRF: a page riding on the loopback
 * address or a client certificate): `Sec-Fetch-Site: cross-site`, or an `Origin` that is neither
 * the server's public origin nor the origin of the Host the request was sent to.
 */
const crossSite = (request: FastifyRequest, publicUrl: string): boolean => {
  if (SAFE_METHODS.has(request.method)) return false
  if (request.headers['sec-fetch-site'] === 'cross-site') return true
  const origin = request.headers.origin
  if (origin === undefined) return false
  const host = request.headers.host
  const own = [new URL(publicUrl).origin, ...(host ? [`http://${host}`, `https://${host}`] : [])]
  return !own.includes(origin.toLowerCase())
}

const forbidden = (why: string): SwitchboardError => new SwitchboardError('FORBIDDEN', `the admin API ${why}`)

/**
 * Who may use the admin API: the holder of the admin token, or a caller whose credential carries
 * the `admin` scope. A server with neither a token nor authenticators serves loopback clients
 * only, decided on the socket's address and refused when the request was forwarded by a proxy
 * or names a non-loopback Host (DNS rebinding). In every mode a cross-site browser request that
 * changes something is refused.
 *
 * The generic authentication stage skips these routes (`ownAuthentication`): it would refuse the
 * admin token, which no authenticator knows. This hook runs the same authenticators itself.
 */
export const registerAdminAccess = (app: FastifyInstance, access: AdminAccess): void => {
  const { token, authentication } = access
  const loopbackMode = token === undefined && authentication.authenticators.length === 0
  const challenge = [ADMIN_CHALLENGE, challengeOf(authentication)].filter(Boolean).join(', ')
  app.addHook('onRequest', async (request, reply) => {
    if (crossSite(request, access.publicUrl())) throw forbidden('refuses a cross-site browser request')
    if (loopbackMode) {
      if (!isLoopbackAddress(request.socket.remoteAddress))
        throw forbidden('serves loopback clients only (set an admin token to open it to others)')
      if (FORWARDED.some((name) => request.headers[name] !== undefined))
        throw forbidden('serves loopback clients only, and this request came through a proxy')
      if (!isLoopbackHost(request.headers.host))
        throw forbidden('serves loopback clients only, and this request names another host')
      return
    }
    if (token !== undefined && tokenMatches(request.headers.authorization, token)) return
    let caller: CallerIdentity
    try {
      caller = await identify(authentication, request)
    } catch (error) {
      if (isSwitchboardError(error) && error.code === 'UNAUTHENTICATED') {
        reply.header('www-authenticate', challenge)
        throw new SwitchboardError(
          'UNAUTHENTICATED',
          'the admin API needs the admin token or a credential with the admin scope',
        )
      }
      throw error
    }
    if (!hasScope(caller, SCOPES.admin)) {
      reply.header('www-authenticate', challenge)
      throw caller.method === 'none'
        ? new SwitchboardError(
            'UNAUTHENTICATED',
            'the admin API needs the admin token or a credential with the admin scope',
          )
        : forbidden('needs the admin scope')
    }
  })
}
