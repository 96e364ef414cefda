import type { IncomingHttpHeaders } from 'node:http'
import type { PeerCertificate } from 'node:tls'
import type { Metadata } from '@grpc/grpc-js'
import { type CallerIdentity, reachOf } from '../../../model/caller.ts'
import { SwitchboardError } from '../../../model/errors.ts'
import type { AgentMount, ServerContext } from '../../../web/context.ts'
import { type ExtensionNegotiation, negotiateExtensions } from '../extensions.ts'
import { type MountCards, mountCards } from '../mount-cards.ts'
import { notFound } from '../operation-errors.ts'
import { A2aOperations } from '../operations.ts'
import { GRPC_METADATA } from '../wire/grpc-service.ts'
import { A2A_VERSION } from '../wire/shapes.ts'

/** Who is on the other end of a call, as the server's authenticators read it. */
export interface GrpcPeer {
  /** The call's metadata as HTTP headers (text entries only): `authorization`, an API-key header, … */
  headers: IncomingHttpHeaders
  /** The client certificate the TLS layer verified, when there is one (mutual TLS). */
  peerCertificate?: PeerCertificate
  /** The peer's address (`ip:port`), telling anonymous callers apart for the rate limit. */
  address: string
}

/** What the binding needs of the assembly: the agents, and its identity and admission rules. */
export interface A2aGrpcOptions {
  server: ServerContext
  /**
   * The mount a request's `tenant` routes to: an agent's slug, as its card's GRPC interface
   * publishes it; empty for the default agent. Undefined: no such agent.
   */
  mountOf(tenant: string): AgentMount | undefined
  /** The caller of a call, by the server's authenticators (UNAUTHENTICATED when none accepts it). */
  identify(peer: GrpcPeer): Promise<CallerIdentity>
  /** Lets the caller call this agent, or throws: its access rule (FORBIDDEN), the rate limit (RATE_LIMITED). */
  admit(caller: CallerIdentity, slug: string, peer: GrpcPeer): void
}

/** A call's metadata as HTTP headers: one string per key, an array when a key repeats. */
export const headersOf = (metadata: Metadata): IncomingHttpHeaders => {
  const headers: IncomingHttpHeaders = {}
  for (const key of Object.keys(metadata.getMap())) {
    if (key.endsWith('-bin')) continue
    const values = metadata.get(key).map(String)
    headers[key] = values.length === 1 ? values[0] : values
  }
  return headers
}

/**
 * `a2a-version`: 1.0 (any patch) is served, and so is an absent one — unlike HTTP, where absent
 * means 0.3: the service name lf.a2a.v1 is itself the version (0.3's gRPC service was a2a.v1).
 */
export const assertGrpcVersion = (headers: IncomingHttpHeaders): void => {
  const sent = [headers[GRPC_METADATA.version]].flat()[0]?.trim()
  if (sent === undefined || sent === '') return
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(sent)
  if (match && `${Number(match[1])}.${Number(match[2])}` === A2A_VERSION) return
  throw new SwitchboardError(
    'VERSION_NOT_SUPPORTED',
    `a2a-version ${JSON.stringify(sent.slice(0, 40))} is not supported; the lf.a2a.v1 gRPC service speaks A2A ${A2A_VERSION}`,
    { requested: sent.slice(0, 40), supported: A2A_VERSION },
  )
}

/** One call's operations, and what its metadata negotiated. */
export interface PreparedCall {
  operations: A2aOperations
  extensions: ExtensionNegotiation
}

/**
 * The request's `tenant` names the agent; the caller's own tenant comes from its credentials
 * only, so the field is taken off the request before the operations see it.
 */
export const callPreparer = (options: A2aGrpcOptions) => {
  const cards = new Map<AgentMount, MountCards>()
  const cardsOf = (mount: AgentMount): MountCards => {
    let found = cards.get(mount)
    if (!found) {
      found = mountCards(mount, options.server)
      cards.set(mount, found)
    }
    return found
  }
  return async (peer: GrpcPeer, request: Record<string, unknown>): Promise<PreparedCall> => {
    assertGrpcVersion(peer.headers)
    const identity = await options.identify(peer)
    const tenant = typeof request.tenant === 'string' ? request.tenant : ''
    delete request.tenant
    const mount = options.mountOf(tenant)
    if (!mount) throw unknownAgent(tenant, request)
    const agent = mount.agent.definition
    options.admit(identity, agent.slug, peer)
    const extensions = negotiateExtensions(agent, peer.headers[GRPC_METADATA.extensions])
    const caller = (access: 'read' | 'write') => ({ ...reachOf(identity, access), agent: agent.slug })
    const operations = new A2aOperations({
      mount,
      server: options.server,
      cards: cardsOf(mount),
      identity,
      callers: { reader: caller('read'), writer: caller('write') },
      extensions,
    })
    return { operations, extensions }
  }
}

/** An unknown agent: a task operation answers as for a missing task; anything else names the problem. */
const unknownAgent = (tenant: string, request: Record<string, unknown>): SwitchboardError => {
  const taskId = [request.id, request.taskId].find((v): v is string => typeof v === 'string' && v !== '')
  if (taskId !== undefined) return notFound(taskId)
  return new SwitchboardError(
    'AGENT_NOT_FOUND',
    `no agent ${JSON.stringify(tenant.slice(0, 80))} here: the request's tenant names the agent (its slug, as its card's GRPC interface lists it), or is empty for the default agent`,
    { tenant: tenant.slice(0, 80) },
  )
}
