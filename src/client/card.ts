import { CardFields, type CardInterface } from '../dialects/a2a/wire/card.ts'
import { A2A_VERSION } from '../dialects/a2a/wire/shapes.ts'
import { V03CardFields, v03Interfaces } from '../dialects/a2a/wire/v03/card.ts'
import { ClawpediaCard } from '../dialects/clawpedia/wire/shapes.ts'
import { isObject } from '../model/json.ts'
import { compileSchema } from '../schema/json-schema.ts'
import { type CachedCard, type CardCache, type CardSource, defaultCardCache } from './card-cache.ts'
import { bareStatus, ClientError } from './errors.ts'
import { type HttpSettings, type JsonAnswer, requestJson } from './http.ts'
import type { OriginPolicy } from './origins.ts'
import type { CallOptions } from './types.ts'

export type { ClawpediaCard }

export type A2aInterface = CardInterface

/**
 * An A2A AgentCard: the REQUIRED fields are checked, the rest kept as sent. A 0.3-only card has
 * no supportedInterfaces (`cardInterfaces` reads its url and additionalInterfaces instead).
 */
export type A2aCard = Omit<CardFields, 'supportedInterfaces'> & {
  supportedInterfaces?: CardInterface[]
  [field: string]: unknown
}

/** The interfaces a card declares: 1.0's supportedInterfaces, or a 0.3-only card's url and additionalInterfaces. */
export const cardInterfaces = (card: A2aCard): CardInterface[] =>
  card.supportedInterfaces ?? v03Interfaces(card as unknown as V03CardFields)

export interface FoundCard<C> {
  card: C
  /** Where the card was read (after redirects). */
  url: string
  source: CardSource
  /** The `kid` of the trusted key whose signature verified the card (`''` for a key without one). */
  signedBy?: string
}

export interface Discovery {
  /** The URL discovery started from, without a trailing slash or card path. */
  baseUrl: string
  a2a?: FoundCard<A2aCard>
  clawpedia?: FoundCard<ClawpediaCard>
  /** Cards found but not used, and why. */
  warnings: string[]
}

const validateA2a = compileSchema(CardFields)
const validateA2aV03 = compileSchema(V03CardFields)
const validateClawpedia = compileSchema(ClawpediaCard)

type Classified = { kind: 'a2a'; card: A2aCard } | { kind: 'clawpedia'; card: ClawpediaCard }

/** Which protocol a card is for, checked against that protocol's schema. Throws CARD_INVALID. */
export const classifyCard = (body: unknown, url: string): Classified => {
  const invalid = (why: string, violations?: { field: string; description: string }[]) =>
    new ClientError('CARD_INVALID', `the agent card at ${url} ${why}`, {
      details: { url, ...(violations && { violations }) },
    })
  if (!isObject(body)) throw invalid('is not a JSON object')
  if ('supportedInterfaces' in body) {
    const violations = validateA2a(body)
    if (violations.length > 0) throw invalid(`is not a valid A2A 1.0 card: ${list(violations)}`, violations)
    return { kind: 'a2a', card: body as A2aCard }
  }
  if ('protocol_version' in body || 'agent_id' in body) {
    const violations = validateClawpedia(body)
    if (violations.length > 0) throw invalid(`is not a valid Clawpedia card: ${list(violations)}`, violations)
    return { kind: 'clawpedia', card: body as unknown as ClawpediaCard }
  }
  if ('preferredTransport' in body || ('url' in body && 'protocolVersion' in body)) {
    const violations = validateA2aV03(body)
    if (violations.length > 0) throw invalid(`is not a valid A2A 0.3 card: ${list(violations)}`, violations)
    return { kind: 'a2a', card: body as A2aCard }
  }
  throw invalid(
    'is neither an A2A card (supportedInterfaces) nor a Clawpedia card (protocol_version, agent_id)',
  )
}

const list = (violations: { description: string }[]): string =>
  violations
    .slice(0, 5)
    .map((v) => v.description)
    .join('; ')

export interface DiscoverOptions extends CallOptions {
  http: HttpSettings
  origins: OriginPolicy
  /** false: no caching at all. */
  cache?: CardCache | false
  /** Also look for the Clawpedia card when the well-known one is an A2A card. */
  wantClawpedia: boolean
}

const WELL_KNOWN = '/.well-known/agent-card.json'
const CLAWPEDIA = '/agent-card.json'

/** Where to look, in order: a card URL given directly, then the A2A well-known path, then Clawpedia's. */
const locations = (url: string): { baseUrl: string; tries: string[] } => {
  const trimmed = url.replace(/\/+$/, '')
  for (const suffix of [WELL_KNOWN, CLAWPEDIA]) {
    if (trimmed.endsWith(suffix)) {
      const baseUrl = trimmed.slice(0, -suffix.length)
      return {
        baseUrl,
        tries: [trimmed, ...[baseUrl + WELL_KNOWN, baseUrl + CLAWPEDIA].filter((u) => u !== trimmed)],
      }
    }
  }
  return { baseUrl: trimmed, tries: [trimmed + WELL_KNOWN, trimmed + CLAWPEDIA] }
}

/**
 * Finds an agent's cards. The first location that holds a card decides the protocol; when that
 * is an A2A card and Clawpedia is wanted, the Clawpedia location is read too (our servers serve
 * both, and the Clawpedia card carries the output schema).
 */
export const discover = async (url: string, options: DiscoverOptions): Promise<Discovery> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ClientError('INVALID_REQUEST', `"${url}" is not an absolute URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ClientError('INVALID_REQUEST', `"${url}" is not an http(s) URL`)
  }
  options.origins.assert(url, 'the agent URL')
  const { baseUrl, tries } = locations(url)
  const discovery: Discovery = { baseUrl, warnings: [] }
  const missing: string[] = []
  let index = 0
  for (; index < tries.length; index++) {
    const found = await fetchCard(tries[index]!, options)
    if (!found) {
      missing.push(tries[index]!)
      continue
    }
    const classified = classifyCard(found.body, found.url)
    if (classified.kind === 'a2a')
      discovery.a2a = { card: classified.card, url: found.url, source: found.source }
    else discovery.clawpedia = { card: classified.card, url: found.url, source: found.source }
    break
  }
  if (!discovery.a2a && !discovery.clawpedia) {
    throw new ClientError('CARD_NOT_FOUND', `no agent card at ${missing.join(' or ')}`, {
      details: { tried: missing },
    })
  }
  const clawpediaUrl = baseUrl + CLAWPEDIA
  if (
    discovery.a2a &&
    options.wantClawpedia &&
    !missing.includes(clawpediaUrl) &&
    tries[index] !== clawpediaUrl
  ) {
    try {
      const found = await fetchCard(clawpediaUrl, options)
      const classified = found && classifyCard(found.body, found.url)
      if (found && classified?.kind === 'clawpedia') {
        discovery.clawpedia = { card: classified.card, url: found.url, source: found.source }
      }
    } catch (error) {
      // The A2A card is enough; a broken second card only costs the Clawpedia interface.
      discovery.warnings.push(`Clawpedia card ignored: ${(error as Error).message}`)
    }
  }
  return discovery
}

const MAX_REDIRECTS = 3

/**
 * One card location, through the cache. Undefined when nothing is there (404, 410, or a body
 * that is not JSON: single-page apps answer 200 with HTML for any path). Redirects are followed
 * by hand so every hop is checked against the origin policy. The card is public: it is asked for
 * without credentials, and with them only when the agent's own origin answers 401 or 403 (a
 * deployment that guards everything); such a card is not cached, as it is the caller's own.
 */
export const fetchCard = async (
  url: string,
  options: DiscoverOptions,
): Promise<{ body: unknown; url: string; source: CardSource } | undefined> => {
  const cache = options.cache === false ? undefined : (options.cache ?? defaultCardCache)
  const { credentials, ...anonymous } = options.http
  let target = url
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    options.origins.assert(target, 'the agent card URL')
    const entry = cache?.get(target)
    if (entry && cache!.isFresh(entry)) return { body: entry.body, url: target, source: 'cache' }
    const spec = {
      headers: { accept: 'application/json', 'a2a-version': A2A_VERSION },
      ...(options.signal && { signal: options.signal }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    }
    let answer = await requestJson(anonymous, target, {
      ...spec,
      headers: { ...spec.headers, ...conditional(entry) },
    })
    if (answer.status === 304 && entry) {
      cache!.revalidated(target, entry, answer.headers)
      return { body: entry.body, url: target, source: 'revalidated' }
    }
    const guarded = (answer.status === 401 || answer.status === 403) && credentials?.covers(target)
    if (guarded) answer = await requestJson(options.http, target, spec)
    const location = answer.headers.get('location')
    if (answer.status >= 300 && answer.status < 400 && location) {
      target = new URL(location, target).href
      continue
    }
    return readCard(answer, target, guarded ? undefined : cache)
  }
  throw new ClientError('PROTOCOL_ERROR', `more than ${MAX_REDIRECTS} redirects fetching the card at ${url}`)
}

const conditional = (entry: CachedCard | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (entry?.etag) headers['if-none-match'] = entry.etag
  if (entry?.lastModified) headers['if-modified-since'] = entry.lastModified
  return headers
}

const readCard = (
  answer: JsonAnswer,
  url: string,
  cache: CardCache | undefined,
): { body: unknown; url: string; source: CardSource } | undefined => {
  if (answer.status === 404 || answer.status === 410) return undefined
  if (answer.status < 200 || answer.status >= 300) {
    throw bareStatus(
      answer.status,
      `fetching the agent card at ${url}: HTTP ${answer.status}`,
      answer.headers,
    )
  }
  if (answer.body === undefined) return undefined
  cache?.store(url, answer.body, answer.headers)
  return { body: answer.body, url, source: 'network' }
}
