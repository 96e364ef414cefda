/** How a card was obtained: a fresh fetch, the cache without asking, or the cache after a 304. */
export type CardSource = 'network' | 'cache' | 'revalidated'

export interface CachedCard {
  body: unknown
  etag?: string
  lastModified?: string
  /** Epoch ms until which the card is used without asking the server. */
  freshUntil: number
}

export interface CardCacheOptions {
  /** Oldest entries go first beyond this. Default 256. */
  maxEntries?: number
  /** Freshness when the server sends no Cache-Control max-age. Default 0: revalidate every time. */
  defaultTtlMs?: number
  now?: () => number
}

/** Just what is read of response headers (undici's and the global Headers both fit). */
export interface HeaderReader {
  get(name: string): string | null
}

interface Freshness {
  store: boolean
  ttlMs: number
}

/** RFC 9111, the parts a private cache of one JSON document needs: no-store, no-cache, max-age, Age. */
const freshnessOf = (headers: HeaderReader, defaultTtlMs: number): Freshness => {
  const directives = new Map<string, string | undefined>()
  for (const part of (headers.get('cache-control') ?? '').split(',')) {
    const [name, value] = part.trim().split('=', 2)
    if (name) directives.set(name.toLowerCase(), value?.replace(/^"|"$/g, ''))
  }
  if (directives.has('no-store')) return { store: false, ttlMs: 0 }
  if (directives.has('no-cache')) return { store: true, ttlMs: 0 }
  const maxAge = Number(directives.get('max-age'))
  if (directives.has('max-age') && Number.isFinite(maxAge) && maxAge >= 0) {
    const age = Number(headers.get('age'))
    return { store: true, ttlMs: Math.max(0, maxAge - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000 }
  }
  return { store: true, ttlMs: defaultTtlMs }
}

/**
 * Agent cards, kept per URL (and per credentials: a card may differ by caller). A fresh entry is
 * used without a request; a stale one with an ETag or Last-Modified is revalidated, so an
 * unchanged card costs a 304 and no body.
 */
export class CardCache {
  readonly #entries = new Map<string, CachedCard>()
  readonly #maxEntries: number
  readonly #defaultTtlMs: number
  readonly #now: () => number

  constructor(options: CardCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 256
    this.#defaultTtlMs = options.defaultTtlMs ?? 0
    this.#now = options.now ?? Date.now
  }

  get(key: string): CachedCard | undefined {
    return this.#entries.get(key)
  }

  isFresh(entry: CachedCard): boolean {
    return this.#now() < entry.freshUntil
  }

  /** Stores a 200 answer's card, unless its headers forbid it. */
  store(key: string, body: unknown, headers: HeaderReader): void {
    const { store, ttlMs } = freshnessOf(headers, this.#defaultTtlMs)
    if (!store) {
      this.#entries.delete(key)
      return
    }
    const entry: CachedCard = { body, freshUntil: this.#now() + ttlMs }
    const etag = headers.get('etag')
    const lastModified = headers.get('last-modified')
    if (etag) entry.etag = etag
    if (lastModified) entry.lastModified = lastModified
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
  }

  /** A 304: the entry is good again for as long as the new headers say. */
  revalidated(key: string, entry: CachedCard, headers: HeaderReader): void {
    const { store, ttlMs } = freshnessOf(headers, this.#defaultTtlMs)
    if (!store) {
      this.#entries.delete(key)
      return
    }
    entry.freshUntil = this.#now() + ttlMs
    const etag = headers.get('etag')
    if (etag) entry.etag = etag
  }

  clear(): void {
    this.#entries.clear()
  }

  get size(): number {
    return this.#entries.size
  }
}

/** The cache `connect()` uses unless told otherwise: one per process. */
export const defaultCardCache = new CardCache()
