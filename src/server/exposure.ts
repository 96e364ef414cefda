import type { SecureServerOptions } from 'node:http2'
import ipaddr from 'ipaddr.js'
import { mtlsAuthenticator } from '../identity/mtls.ts'
import type { IdentityOptions } from './authentication.ts'

/** The server terminates TLS itself. PEM texts (the CLI reads them from files). */
export interface TlsOptions {
  cert: string | Buffer
  key: string | Buffer
  /**
   * The CA (PEM, one or several certificates) whose client certificates authenticate callers
   * (mutual TLS): the certificate's subject CN becomes the principal. Without it no client
   * certificate is asked for.
   */
  clientCa?: string | Buffer
  /** The tenant of callers authenticated by certificate (default `default`). */
  clientTenant?: string
}

/**
 * Node's TLS settings. With a client CA, a certificate is requested but not required
 * (`rejectUnauthorized: false`): a caller without one may still authenticate another way, and
 * only a certificate the CA verified (`socket.authorized`) is handed to the authenticators.
 */
export const httpsOptionsOf = (tls: TlsOptions): SecureServerOptions => ({
  cert: tls.cert,
  key: tls.key,
  ...(tls.clientCa !== undefined && { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }),
})

/** The configured identity, with certificate authentication added (last) when TLS has a client CA. */
export const identityWithTls = (
  identity: IdentityOptions | undefined,
  tls: TlsOptions | undefined,
): IdentityOptions => {
  if (tls?.clientCa === undefined) return identity ?? {}
  const mtls = mtlsAuthenticator(tls.clientTenant !== undefined ? { tenant: tls.clientTenant } : {})
  return { ...identity, authenticators: [...(identity?.authenticators ?? []), mtls] }
}

/** A bind address only this machine can reach. A host name other than `localhost` is not assumed to be one. */
export const isLoopbackBind = (host: string): boolean => {
  if (host === 'localhost') return true
  const bare = host.replace(/^\[|\]$/g, '')
  if (!ipaddr.isValid(bare)) return false
  const address = ipaddr.process(bare)
  return address.range() === 'loopback'
}

/**
 * Secure by default: with no authenticator every caller is one anonymous identity that sees every
 * task, which is tolerable only when nobody else can connect. So a server without authenticators
 * binds a non-loopback address only when told to in so many words. Answers whether it runs
 * exposed (and must say so on every start).
 */
export const checkExposure = (settings: {
  host: string
  /** Whether any authenticator is configured. */
  authenticated: boolean
  insecureNoAuth: boolean
}): boolean => {
  if (settings.authenticated || isLoopbackBind(settings.host)) return false
  if (!settings.insecureNoAuth)
    throw new Error(
      `refusing to listen on ${settings.host} with no authentication: anyone who can reach it could read, ` +
        'answer and cancel every task. Configure an authenticator (API keys, JWT or mutual TLS: ' +
        'docs/security.md), bind 127.0.0.1, or pass --insecure-no-auth (insecureNoAuth: true) to accept the risk',
    )
  return true
}

export const INSECURE_WARNING =
  'authentication is off (--insecure-no-auth) on a non-loopback address: anyone who can reach this server can read, answer and cancel every task'
