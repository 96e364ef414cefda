import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { Agent, buildConnector, type Dispatcher, interceptors } from 'undici'
import { isSwitchboardError, SwitchboardError } from '../model/errors.ts'
import {
  type CompiledPolicy,
  compilePolicy,
  hostAllowed,
  nameRefusalReason,
  type OutboundPolicy,
  refusalReason,
} from './address-policy.ts'

export type { OutboundPolicy } from './address-policy.ts'

export interface ResolvedAddress {
  address: string
  family: number
}

/** Name resolution as the guard needs it: every address of a host. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>

/** A getaddrinfo-like "no such name" failure. */
const notFound = (hostname: string): Error =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname,
  })

/**
 * The system resolver, except for names under `.invalid`: RFC 6761 §6.4 asks resolvers to answer
 * those at once with "no such name", and the system's may forward them to a DNS server instead.
 */
const systemLookup: LookupAll = (hostname) =>
  /(^|\.)invalid\.?$/i.test(hostname)
    ? Promise.reject(notFound(hostname))
    : dnsLookup(hostname, { all: true })

export interface GuardedDispatcherOptions {
  /**
   * Redirect hops to follow (default 0: a 3xx is returned as is). Each hop to a new origin opens
   * a new connection, so the guard vets it again.
   */
  maxRedirections?: number
  /** Socket and TLS options for undici's connector: `timeout`, `ca`, … */
  connect?: buildConnector.BuildOptions
  /** Other Agent options: keep-alive, connections per origin, … */
  agent?: Omit<Agent.Options, 'connect'>
  /** Default: dns.lookup with `all: true`. Tests inject names that resolve where they need. */
  lookup?: LookupAll
}

const refuse = (host: string, reason: string, address?: string): SwitchboardError =>
  new SwitchboardError('URL_NOT_ALLOWED', `URL host "${host}" is not allowed: ${reason}`, {
    host,
    ...(address === undefined ? {} : { address }),
    reason,
  })

const vet = (policy: CompiledPolicy, host: string, address: string): void => {
  const reason = refusalReason(policy, address)
  if (reason !== undefined) throw refuse(host, reason, address)
}

/**
 * What is decided without DNS: a literal address is vetted (and returned), a name the policy
 * refuses by itself (localhost, the metadata services) is refused.
 */
const vetWithoutDns = (policy: CompiledPolicy, host: string): string | undefined => {
  if (isIP(host) !== 0) {
    vet(policy, host, host)
    return host
  }
  const reason = nameRefusalReason(policy, host)
  if (reason !== undefined) throw refuse(host, reason)
  return undefined
}

const unbracketed = (hostname: string): string =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname

/**
 * Resolves a host and vets every address it resolves to (one bad address refuses the host: the
 * system may pick any of them). Returns the addresses to connect to, in resolver order. Throws
 * URL_NOT_ALLOWED; a failed lookup is passed through as is, since DNS outages are transient.
 */
export const resolveAllowed = async (
  policy: CompiledPolicy,
  hostname: string,
  lookup: LookupAll = systemLookup,
): Promise<string[]> => {
  const host = unbracketed(hostname)
  const literal = vetWithoutDns(policy, host)
  if (literal !== undefined) return [literal]
  const addresses = (await lookup(host)).map((a) => a.address)
  if (addresses.length === 0) throw refuse(host, 'it resolves to no address')
  if (!hostAllowed(policy, host)) for (const address of addresses) vet(policy, host, address)
  return addresses
}

type Callback = buildConnector.Callback

/** Tries the vetted addresses in order, as the system resolver would (IPv6 first, then IPv4…). */
const connectInOrder = (
  base: buildConnector.connector,
  options: buildConnector.Options,
  addresses: readonly string[],
  callback: Callback,
  index = 0,
): void => {
  // SNI and certificate checks stay on the name the caller asked for, not the IP we dial.
  const servername = options.servername || (isIP(options.hostname) === 0 ? options.hostname : undefined)
  const hostname = addresses[index]!
  try {
    base({ ...options, hostname, servername }, (...result) => {
      if (result[0] !== null && index + 1 < addresses.length) {
        connectInOrder(base, options, addresses, callback, index + 1)
        return
      }
      callback(...result)
    })
  } catch (error) {
    // A synchronous throw (bad socket options) would otherwise leave the request waiting forever.
    callback(toError(error), null)
  }
}

const toError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))

/**
 * The connect step with the SSRF guard in it: resolve, vet every address, then dial the vetted IP.
 * Dialling the address we vetted (instead of handing the name to the socket, which would resolve
 * again) is what closes DNS rebinding.
 */
const guardedConnector = (
  policy: CompiledPolicy,
  options: GuardedDispatcherOptions,
): buildConnector.connector => {
  const base = buildConnector({ ...options.connect })
  const lookup = options.lookup ?? systemLookup
  return (connectOptions, callback) => {
    void (async () => {
      let addresses: string[]
      try {
        addresses = await resolveAllowed(policy, connectOptions.hostname, lookup)
      } catch (error) {
        callback(toError(error), null)
        return
      }
      connectInOrder(base, connectOptions, addresses, callback)
    })()
  }
}

/**
 * The one dispatcher for outbound HTTP: an undici Agent whose every connection goes through the
 * guard. A refused connection fails with SwitchboardError URL_NOT_ALLOWED before any socket opens.
 */
export const createGuardedDispatcher = (
  policy: OutboundPolicy = {},
  options: GuardedDispatcherOptions = {},
): Dispatcher => {
  const agent = new Agent({ ...options.agent, connect: guardedConnector(compilePolicy(policy), options) })
  const hops = options.maxRedirections ?? 0
  return hops > 0 ? agent.compose(interceptors.redirect({ maxRedirections: hops })) : agent
}

/**
 * Registration-time check of a URL (a push endpoint, a download before it is dialled): http or
 * https, and a host the policy does not refuse by itself — a literal address it forbids, or a
 * name that can only reach one (localhost, the metadata services). Throws URL_NOT_ALLOWED naming
 * the host and the reason. Nothing is resolved: a name that does not resolve now (a receiver not
 * yet in DNS, a resolver offline) is not refused for it. The connect-time guard runs on every
 * request and vets whatever the name then resolves to.
 */
export const assertUrlAllowed = async (url: string, policy: OutboundPolicy = {}): Promise<void> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new SwitchboardError('URL_NOT_ALLOWED', 'the URL is not a valid absolute URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw refuse(parsed.hostname, `scheme ${parsed.protocol} is not http or https`)
  }
  vetWithoutDns(compilePolicy(policy), unbracketed(parsed.hostname))
}

/** The URL_NOT_ALLOWED refusal in an error or its causes (fetch wraps connector errors). */
export const findRefusal = (error: unknown): SwitchboardError | undefined => {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (isSwitchboardError(e) && e.code === 'URL_NOT_ALLOWED') return e
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
