import { X509Certificate } from 'node:crypto'
import type { PeerCertificate } from 'node:tls'
import type { CallerIdentity } from '../model/caller.ts'
import type { Authenticator } from './authenticator.ts'

export interface MtlsOptions {
  /** The tenant of every certificate's caller (default `default`). */
  tenant?: string
}

/** A distinguished name on one line, in the certificate's order: `O=Acme, OU=Ops, CN=alice`. */
const oneLine = (dn: string): string => dn.split('\n').filter(Boolean).join(', ')

/**
 * The principal of a certificate: its subject's common name, or — when the subject has no CN, or
 * several — the whole subject DN, so that two different subjects never share a principal.
 */
const principalOf = (certificate: PeerCertificate, subject: string): string => {
  const cn = certificate.subject?.CN
  return typeof cn === 'string' && cn !== '' ? cn : subject
}

/**
 * Mutual TLS: the client certificate the TLS layer verified against the configured client CA
 * (the authentication stage hands over only an authorized one) names the caller. A request
 * without a certificate is not this authenticator's: another may still authenticate it.
 */
export const mtlsAuthenticator = (options: MtlsOptions = {}): Authenticator => ({
  name: 'mtls',
  securityScheme: { mtlsSecurityScheme: {} },
  async authenticate({ peerCertificate }): Promise<CallerIdentity | undefined> {
    if (!peerCertificate?.raw) return undefined
    const x509 = new X509Certificate(peerCertificate.raw)
    const subject = oneLine(x509.subject)
    return {
      principal: principalOf(peerCertificate, subject),
      tenant: options.tenant ?? 'default',
      scopes: [],
      method: 'mtls',
      claims: {
        subject,
        issuer: oneLine(x509.issuer),
        serial: x509.serialNumber,
        fingerprint256: x509.fingerprint256,
      },
    }
  },
})
