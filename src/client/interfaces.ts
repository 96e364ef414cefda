import { A2A_VERSION } from '../dialects/a2a/wire/shapes.ts'
import type { A2aInterface, Discovery } from './card.ts'
import { ClientError, isClientError } from './errors.ts'
import type { HttpSettings } from './http.ts'
import type { OriginPolicy } from './origins.ts'
import { JsonRpcTransport } from './transports/a2a-jsonrpc.ts'
import { RestTransport } from './transports/a2a-rest.ts'
import { ClawpediaTransport } from './transports/clawpedia.ts'
import type { InterfaceKind, Transport } from './types.ts'

const BINDINGS: Readonly<Record<string, InterfaceKind>> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest' }

/** Only Major.Minor counts (digest §5.1); a patch number is ignored. */
const speaks = (iface: A2aInterface): boolean => {
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(iface.protocolVersion.trim())
  return match !== null && `${Number(match[1])}.${Number(match[2])}` === A2A_VERSION
}

export interface Selection {
  transports: Transport[]
  /** Interfaces the card declares that will not be used, and why. */
  skipped: string[]
}

/**
 * The transports to use, best first: client preference decides between kinds, card order within
 * a kind (the card lists its interfaces by the agent's preference). A2A interfaces of another
 * version or binding, and any URL outside the allowed origins, are skipped.
 */
export const selectInterfaces = (
  discovery: Discovery,
  options: {
    prefer: readonly InterfaceKind[]
    origins: OriginPolicy
    http: HttpSettings
    /** A2A-Extensions for every A2A request. */
    extensions?: readonly string[]
  },
): Selection => {
  const { prefer, origins, http, extensions } = options
  const skipped: string[] = []
  const a2a: { kind: InterfaceKind; iface: A2aInterface }[] = []
  for (const iface of discovery.a2a?.card.supportedInterfaces ?? []) {
    const kind = BINDINGS[iface.protocolBinding]
    if (!kind) skipped.push(`${iface.url}: binding ${iface.protocolBinding} is not supported`)
    else if (!speaks(iface))
      skipped.push(`${iface.url}: A2A ${iface.protocolVersion}, this client speaks ${A2A_VERSION}`)
    else if (!prefer.includes(kind))
      skipped.push(`${iface.url}: ${kind} is not among the preferred interfaces`)
    else if (!origins.allows(iface.url)) skipped.push(`${iface.url}: outside the allowed origins`)
    else a2a.push({ kind, iface })
  }
  const transports: Transport[] = []
  for (const kind of prefer) {
    if (kind === 'clawpedia') {
      if (!discovery.clawpedia) continue
      const baseUrl = discovery.clawpedia.url.replace(/\/(\.well-known\/)?agent-card\.json$/, '')
      if (origins.allows(baseUrl)) transports.push(new ClawpediaTransport({ baseUrl, http }))
      else skipped.push(`${baseUrl}: outside the allowed origins`)
      continue
    }
    for (const { iface } of a2a.filter((entry) => entry.kind === kind)) {
      const card = discovery.a2a!.card
      const settings = { iface, card, http, ...(extensions && { extensions }) }
      transports.push(kind === 'jsonrpc' ? new JsonRpcTransport(settings) : new RestTransport(settings))
    }
  }
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
