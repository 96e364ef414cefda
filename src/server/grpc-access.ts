import type { A2aGrpcOptions, GrpcPeer } from '../dialects/a2a/grpc/calls.ts'
import { type Authentication, authenticate } from '../identity/authenticate.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { AgentMount, ServerContext } from '../web/context.ts'
import { type AgentAccess, allows } from './access.ts'
import type { RateLimit } from './limits.ts'
import { credentialHeaders, withoutCredentials } from './redaction.ts'

/** The address of a gRPC peer without its port (`ipv4:1.2.3.4:5678`, `[::1]:5678` → the IP). */
const ipOf = (peer: string): string =>
  peer
    .replace(/^ipv[46]:/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '')

/**
 * What the gRPC binding asks of the assembly, with the HTTP side's rules: the same authenticators
 * (metadata as headers, the verified client certificate), the same per-agent access rules and the
 * same rate-limit buckets.
 */
export const grpcAccess = (options: {
  server: ServerContext
  mounts: readonly AgentMount[]
  defaultMount: AgentMount
  authentication: Authentication
  access: AgentAccess | undefined
  rateLimit: RateLimit | undefined
}): A2aGrpcOptions => {
  const bySlug = new Map(options.mounts.map((mount) => [mount.agent.definition.slug, mount]))
  const access = options.access ?? {}
  const { server, authentication } = options
  const secretHeaders = credentialHeaders(authentication.authenticators)
  return {
    server,
    mountOf: (tenant) => (tenant === '' ? options.defaultMount : bySlug.get(tenant)),
    async identify(peer: GrpcPeer) {
      try {
        return await authenticate(authentication, {
          headers: peer.headers,
          ...(peer.peerCertificate && { peerCertificate: peer.peerCertificate }),
        })
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause
        if (cause !== undefined) server.logger.warn({ err: cause }, 'a credential could not be checked')
        throw withoutCredentials(error, peer.headers, secretHeaders)
      }
    },
    admit(caller, slug, peer) {
      const rule = Object.hasOwn(access, slug) ? access[slug] : access['*']
      if (rule && !allows(rule, caller))
        throw new SwitchboardError('FORBIDDEN', `this caller may not call agent ${slug}`)
      options.rateLimit?.(caller, ipOf(peer.address))
    },
  }
}
