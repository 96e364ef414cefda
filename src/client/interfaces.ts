import { A2A_VERSION } from '../dialects/a2a/wire/shapes.ts'
import { type A2aCard, type A2aInterface, cardInterfaces, type Discovery } from './card.ts'
import { ClientError, isClientError } from './errors.ts'
import type { HttpSettings } from './http.ts'
import type { OriginPolicy } from './origins.ts'
import { type GrpcSettings, GrpcTransport, grpcTarget } from './transports/a2a-grpc.ts'
import { JsonRpcTransport } from './transports/a2a-jsonrpc.ts'
import { RestTransport } from './transports/a2a-rest.ts'
import { V03JsonRpcTransport } from './transports/a2a-v03-jsonrpc.ts'
import { RestV03Transport } from './transports/a2a-v03-rest.ts'
import { ClawpediaTransport } from './transports/clawpedia.ts'
import type { InterfaceKind, Transport } from './types.ts'

const BINDINGS: Readonly<Record<string, InterfaceKind>> = {
  JSONRPC: 'jsonrpc',
  'HTTP+JSON': 'rest',
  GRPC: 'grpc',
}

/** What every A2A transport is built from: the card's interface, the card, and the client's settings. */
export type A2aTransportClass = new (settings: {
  iface: A2aInterface
  card: A2aCard
  http: HttpSettings
  extensions?: readonly string[]
  /** Where the card was read (gRPC: an https agent means TLS). */
  agentUrl?: string
  grpc?: GrpcSettings
}) => Transport

const V10_TRANSPORTS: Readonly<Record<string, A2aTransportClass>> = {
  JSONRPC: JsonRpcTransport,
  'HTTP+JSON': RestTransport,
  GRPC: GrpcTransport,
}

/**
 * The A2A 0.3 transport of each binding (a card's 0.3 entries, or a 0.3-only card's interfaces).
 * A binding missing here is skipped at 0.3.
 */
export const V03_TRANSPORTS: Readonly<Record<string, A2aTransportClass>> = {
  JSONRPC: V03JsonRpcTransport,
  'HTTP+JSON': RestV03Transport,
}

/** Major.Minor of an interface's version (a patch number is ignored: digest §5.1). */
const versionOf = (iface: A2aInterface): string | undefined => {
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(iface.protocolVersion.trim())
  return match ? `${Number(match[1])}.${Number(match[2])}` : undefined
}

export interface Selection {
  transports: Transport[]
  /** Interfaces the card declares that will not be used, and why. */
  skipped: string[]
}

/**
 * The transports to use, best first: client preference decides between kinds, card order within
 * a kind (the card lists its interfaces by the agent's preference), and every A2A 1.0 interface
 * comes before any 0.3 one (0.3 is the fallback for agents that speak nothing newer). A2A
 * interfaces of another version or binding, and any URL outside the allowed origins, are skipped.
 */
export const selectInterfaces = (
  discovery: Discovery,
  options: {
    prefer: readonly InterfaceKind[]
    origins: OriginPolicy
    http: HttpSettings
    /** A2A-Extensions for every A2A request. */
    extensions?: readonly string[]
    grpc?: GrpcSettings
  },
): Selection => {
  const { prefer, origins, http, extensions, grpc } = options
  const skipped: string[] = []
  const a2a: { kind: InterfaceKind; iface: A2aInterface; make: A2aTransportClass; v03: boolean }[] = []
  const card = discovery.a2a?.card
  const agentUrl = discovery.a2a?.url
  /** Where an interface is, as an origin the policy can judge (a gRPC `host:port` has none of its own). */
  const locationOf = (iface: A2aInterface): string | undefined =>
    iface.protocolBinding === 'GRPC' ? grpcTarget(iface.url, agentUrl)?.url : iface.url
  for (const iface of card ? cardInterfaces(card) : []) {
    const kind = BINDINGS[iface.protocolBinding]
    const version = versionOf(iface)
    const make =
      version === A2A_VERSION
        ? V10_TRANSPORTS[iface.protocolBinding]
        : version === '0.3'
          ? V03_TRANSPORTS[iface.protocolBinding]
          : undefined
    if (!kind) skipped.push(`${iface.url}: binding ${iface.protocolBinding} is not supported`)
    else if (!make)
      skipped.push(
        `${iface.url}: ${iface.protocolBinding} at A2A ${iface.protocolVersion} is not supported (this client speaks ${A2A_VERSION}${Object.hasOwn(V03_TRANSPORTS, iface.protocolBinding) ? ' and 0.3' : ''})`,
      )
    else if (!prefer.includes(kind))
      skipped.push(`${iface.url}: ${kind} is not among the preferred interfaces`)
    else if (locationOf(iface) === undefined)
      skipped.push(`${iface.url}: not a gRPC address (host:port, or an http(s) URL)`)
    else if (!origins.allows(locationOf(iface)!)) skipped.push(`${iface.url}: outside the allowed origins`)
    else a2a.push({ kind, iface, make, v03: version === '0.3' })
  }
  const transports: Transport[] = []
  const build = (entry: (typeof a2a)[number]) =>
    new entry.make({
      iface: entry.iface,
      card: card!,
      http,
      ...(extensions && { extensions }),
      ...(agentUrl && { agentUrl }),
      ...(grpc && { grpc }),
    })
  for (const kind of prefer) {
    if (kind === 'clawpedia') {
      if (!discovery.clawpedia) continue
      const baseUrl = discovery.clawpedia.url.replace(/\/(\.well-known\/)?agent-card\.json$/, '')
      if (origins.allows(baseUrl)) transports.push(new ClawpediaTransport({ baseUrl, http }))
      else skipped.push(`${baseUrl}: outside the allowed origins`)
      continue
    }
    for (const entry of a2a.filter((e) => e.kind === kind && !e.v03)) transports.push(build(entry))
  }
  for (const kind of prefer)
    for (const entry of a2a.filter((e) => e.kind === kind && e.v03)) transports.push(build(entry))
  if (discovery.clawpedia && !prefer.includes('clawpedia')) {
    skipped.push(`${discovery.clawpedia.url}: clawpedia is not among the preferred interfaces`)
  }
  return { transports, skipped }
}

/**
 * An agent's transports with failover: every operation runs on the current one; when that one
 * cannot be reached (nothing listens, nothing at the path, the gateway is down), the operation is
 * repeated on the next, which then stays current. Only failures that prove the request never
 * got to the agent move on; anything the agent answered is the answer.
 */
export class Interfaces {
  readonly #transports: readonly Transport[]
  #current = 0

  constructor(transports: readonly Transport[]) {
    if (transports.length === 0) throw new ClientError('NO_USABLE_INTERFACE')
    this.#transports = transports
  }

  get current(): Transport {
    return this.#transports[this.#current]!
  }

  get all(): readonly Transport[] {
    return this.#transports
  }

  /**
   * Runs `operation` with failover. `only` limits it to the transports that offer the operation
   * (ListTasks is A2A only); such an operation does not move the current transport.
   */
  async run<T>(
    operation: (transport: Transport) => Promise<T>,
    only?: (transport: Transport) => boolean,
  ): Promise<T> {
    const count = this.#transports.length
    const order = Array.from({ length: count }, (_, i) => (this.#current + i) % count).filter((index) =>
      only ? only(this.#transports[index]!) : index >= this.#current,
    )
    let lastError: unknown
    for (const index of order) {
      try {
        const result = await operation(this.#transports[index]!)
        if (!only) this.#current = index
        return result
      } catch (error) {
        if (!isClientError(error) || !error.unreachable) throw error
        lastError = error
      }
    }
    if (lastError) throw lastError
    throw new ClientError('UNSUPPORTED_OPERATION', 'no interface of this agent offers this operation')
  }
}
