export interface NextDelayOptions {
  /** Zero-based: the delay before the first retry is drawn with attempt 0. */
  attempt: number
  baseMs: number
  capMs: number
  /** [0, 1), like Math.random; tests pass a fixed one. */
  random?: () => number
}

/**
 * Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^attempt)]. Full jitter
 * spreads the retries of many deliveries that failed together (a receiver outage) instead of
 * bringing them back in waves.
 */
export const nextDelay = ({ attempt, baseMs, capMs, random = Math.random }: NextDelayOptions): number => {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt))
  return Math.floor(random() * (ceiling + 1))
}

/**
 * Retry-After (RFC 9110 §10.2.3) as a delay in milliseconds: delay-seconds or an HTTP date.
 * Undefined when absent or unreadable; a date in the past means "now" (0).
 */
export const parseRetryAfter = (
  value: string | readonly string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined => {
  const raw = (typeof value === 'string' ? value : value?.[0])?.trim()
  if (!raw) return undefined
  if (/^\d+$/.test(raw)) return Number(raw) * 1000
  // Every HTTP date form names a month; V8's lenient Date.parse would read "1.5" as a date.
  if (!/[a-z]{3}/i.test(raw)) return undefined
  const at = Date.parse(raw)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}
