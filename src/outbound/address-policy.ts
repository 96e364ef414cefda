import ipaddr from 'ipaddr.js'
import { SwitchboardError } from '../model/errors.ts'

/**
 * Which destinations outbound requests may reach. Entries are CIDRs ("127.0.0.0/8", "::1/128"),
 * single addresses, or exact hostnames. Empty (the default): public unicast addresses only.
 */
export interface OutboundPolicy {
  allow?: string[]
}

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Cidr = [Address, number]

/** A policy parsed once, so every connection does no string work beyond the lookup. */
export interface CompiledPolicy {
  readonly cidrs: readonly Cidr[]
  readonly hosts: ReadonlySet<string>
}

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/

/** Lower case without the root dot: "Hooks.Example.COM." and "hooks.example.com" are one host. */
export const normalizeHost = (host: string): string => host.toLowerCase().replace(/\.$/, '')

export const compilePolicy = (policy: OutboundPolicy = {}): CompiledPolicy => {
  const cidrs: Cidr[] = []
  const hosts = new Set<string>()
  for (const entry of policy.allow ?? []) {
    const value = entry.trim()
    if (value.includes('/')) {
      try {
        cidrs.push(ipaddr.parseCIDR(value))
      } catch {
        throw invalidEntry(entry, 'not a valid CIDR')
      }
    } else if (ipaddr.isValid(value)) {
      const address = ipaddr.parse(value)
      cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128])
    } else if (HOSTNAME.test(normalizeHost(value))) {
      hosts.add(normalizeHost(value))
    } else {
      throw invalidEntry(entry, 'neither a CIDR, an address nor a hostname')
    }
  }
  return { cidrs, hosts }
}

const invalidEntry = (entry: string, why: string): SwitchboardError =>
  new SwitchboardError('INVALID_REQUEST', `outbound policy entry "${entry}" is ${why}`, {
    violations: [{ field: '/allow', description: `"${entry}" is ${why}` }],
  })

export const hostAllowed = (policy: CompiledPolicy, hostname: string): boolean =>
  policy.hosts.has(normalizeHost(hostname))

/**
 * IPv6 forms that carry an IPv4 address, and where it sits. A packet to any of them may end up at
 * that IPv4 address (mapped sockets, NAT64, 6to4 and Teredo relays), so the reason for a refusal
 * names the embedded address.
 */
const embeddedIPv4 = (address: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | undefined => {
  const bytes = address.toByteArray()
  const at = (form: string, offset: number, mask = 0) => ({
    form,
    v4: new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => b ^ mask)),
  })
  switch (address.range()) {
    case 'ipv4Mapped':
      return at('IPv4-mapped', 12)
    case 'rfc6145':
      return at('IPv4-translated', 12)
    case 'rfc6052':
      return at('NAT64', 12)
    case '6to4':
      return at('6to4', 2)
    case 'teredo':
      // The client address is stored inverted in the last 32 bits.
      return at('Teredo', 12, 0xff)
    case 'unicast':
      // IPv4-compatible (::a.b.c.d, deprecated): ipaddr.js files it under unicast.
      return bytes.slice(0, 12).every((b) => b === 0) ? at('IPv4-compatible', 12) : undefined
    default:
      return undefined
  }
}

const inAllowList = (policy: CompiledPolicy, address: Address): boolean =>
  policy.cidrs.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))

/**
 * Vets one resolved address. Returns why it is refused, or undefined when it may be reached.
 * Only ipaddr.js 'unicast' passes: loopback, private, link-local (the cloud metadata service),
 * CGNAT, multicast, unspecified, broadcast, reserved and every IPv6 transition form are refused,
 * unless the policy allows the address itself.
 */
export const refusalReason = (policy: CompiledPolicy, ip: string): string | undefined => {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`
  const raw = ipaddr.parse(ip)
  if (inAllowList(policy, raw)) return undefined
  if (raw.kind() === 'ipv6') {
    const v6 = raw as ipaddr.IPv6
    const embedded = embeddedIPv4(v6)
    if (embedded) {
      const { form, v4 } = embedded
      // A mapped address is the IPv4 address itself, seen through an IPv6 socket.
      if (v6.isIPv4MappedAddress()) {
        const inner = refusalReason(policy, v4.toString())
        return inner && `${ip} is IPv4-mapped: ${inner}`
      }
      return `${ip} is ${form} IPv6 embedding ${v4.toString()}, in the ${v4.range()} range`
    }
  }
  const range = raw.range()
  return range === 'unicast' ? undefined : `${ip} is in the ${range} range`
}

/**
 * Names whose destination is known without asking DNS: `localhost` and every name under it are
 * loopback (RFC 6761 §6.3), and the cloud metadata services' names are their link-local address.
 */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
])
const FIXED_NAMES: ReadonlyArray<{ what: string; matches: (host: string) => boolean; addresses: string[] }> =
  [
    {
      what: 'a loopback name',
      matches: (host) => host === 'localhost' || host.endsWith('.localhost'),
      addresses: ['127.0.0.1', '::1'],
    },
    {
      what: 'a cloud metadata service',
      matches: (host) => METADATA_NAMES.has(host),
      addresses: ['169.254.169.254'],
    },
  ]

/**
 * Vets a host name without resolving it. Refused: a name that can only reach addresses the policy
 * refuses (localhost, the metadata services), unless the policy allows the name itself or one of
 * those addresses. Any other name is left to the check at dial time, which vets what it resolves
 * to: a name that does not resolve now may later, and one that does may change.
 */
export const nameRefusalReason = (policy: CompiledPolicy, hostname: string): string | undefined => {
  const host = normalizeHost(hostname)
  if (policy.hosts.has(host)) return undefined
  const fixed = FIXED_NAMES.find((name) => name.matches(host))
  if (!fixed) return undefined
  const reasons = fixed.addresses.map((address) => refusalReason(policy, address))
  if (reasons.some((reason) => reason === undefined)) return undefined
  return `${host} is ${fixed.what} (${reasons[0]})`
}
