import type { FastifyInstance } from 'fastify'
import type { CallerIdentity } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'

/** Abuse limits per principal (docs/security/limits.md). 0 turns a limit off. */
export interface LimitsOptions {
  /** Requests one principal may make per minute, on this replica. */
  requestsPerMinute?: number
  /** Requests one principal may make at once above the steady rate (the bucket's size). */
  burst?: number
  /** Non-terminal tasks one principal may hold, across replicas (counted in the store). */
  openTasks?: number
}

/**
 * The limits in force. Unconfigured, a server on a loopback address has none (one developer, zero
 * setup); any other address gets generous ones, so an exposed server is never unbounded.
 */
export const EXPOSED_DEFAULTS = { requestsPerMinute: 600, openTasks: 1000 } as const

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host.startsWith('127.')

export const limitsOf = (options: LimitsOptions | undefined, host: string): Required<LimitsOptions> => {
  const defaults = isLoopback(host) ? { requestsPerMinute: 0, openTasks: 0 } : EXPOSED_DEFAULTS
  const requestsPerMinute = options?.requestsPerMinute ?? defaults.requestsPerMinute
  // Ten seconds' worth at once by default: a client catching up is served, a flood is not.
  const burst = options?.burst ?? Math.max(1, Math.ceil(requestsPerMinute / 6))
  return { requestsPerMinute, burst, openTasks: options?.openTasks ?? defaults.openTasks }
}

interface Bucket {
  tokens: number
  at: number
}

/**
 * Token buckets, one per key, in this process's memory. A full bucket is the same as none, so
 * buckets are dropped once full again; past `maxBuckets` the least recently used is dropped too
 * (that key starts over with a full bucket): memory stays bounded whatever the number of callers.
 */
export class TokenBuckets {
  readonly #perMs: number
  readonly #size: number
  readonly #now: () => number
  readonly #maxBuckets: number
  readonly #buckets = new Map<string, Bucket>()

  constructor(options: { perMinute: number; burst: number; now?: () => number; maxBuckets?: number }) {
    this.#perMs = options.perMinute / 60_000
    this.#size = options.burst
    this.#now = options.now ?? Date.now
    this.#maxBuckets = options.maxBuckets ?? 100_000
  }

  get size(): number {
    return this.#buckets.size
  }

  /** Takes a token for `key`: 0 when granted, otherwise the milliseconds until one is available. */
  take(key: string): number {
    const now = this.#now()
    const bucket = this.#buckets.get(key)
    const tokens = bucket ? Math.min(this.#size, bucket.tokens + (now - bucket.at) * this.#perMs) : this.#size
    this.#buckets.delete(key) // re-inserted last: the map's order is least recently used first
    if (tokens < 1) {
      this.#buckets.set(key, { tokens, at: now })
      return Math.ceil((1 - tokens) / this.#perMs)
    }
    this.#buckets.set(key, { tokens: tokens - 1, at: now })
    this.#evict(now)
    return 0
  }

  /** Drops the least recently used buckets that are full again, and any beyond the cap. */
  #evict(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      const full = bucket.tokens + (now - bucket.at) * this.#perMs >= this.#size
      if (!full && this.#buckets.size <= this.#maxBuckets) break
      this.#buckets.delete(key)
    }
  }
}

/** Takes one request of a caller from its bucket, or throws RATE_LIMITED with the seconds to wait. */
export type RateLimit = (caller: CallerIdentity, address: string) => void

/**
 * The request rate limit of a server, per principal, shared by every binding (HTTP and gRPC draw
 * from the same buckets). Callers without credentials share one principal, so they are told apart
 * by address. Undefined when there is no limit.
 */
export const rateLimitOf = (limits: Required<LimitsOptions>, now?: () => number): RateLimit | undefined => {
  if (limits.requestsPerMinute <= 0) return undefined
  const buckets = new TokenBuckets({
    perMinute: limits.requestsPerMinute,
    burst: limits.burst,
    ...(now && { now }),
  })
  return (caller, address) => {
    const key = caller.method === 'none' ? `ip:${address}` : `${caller.tenant}\u0000${caller.principal}`
    const waitMs = buckets.take(key)
    if (waitMs === 0) return
    const seconds = Math.ceil(waitMs / 1000)
    throw new SwitchboardError('RATE_LIMITED', `too many requests from this caller; retry in ${seconds} s`, {
      retryAfterSeconds: seconds,
    })
  }
}

/**
 * The request rate limit on HTTP: after authentication (its hook is registered after it), on
 * every route but the public ones (cards, probes).
 */
export const registerRateLimit = (app: FastifyInstance, rateLimit: RateLimit | undefined): void => {
  if (!rateLimit) return
  app.addHook('onRequest', async (request, reply) => {
    const { caller } = request
    if (request.routeOptions.config?.public === true || !caller) return
    try {
      rateLimit(caller, request.ip)
    } catch (error) {
      const seconds = (error as SwitchboardError).details?.retryAfterSeconds
      if (seconds !== undefined) reply.header('retry-after', String(seconds))
      throw error
    }
  })
}
