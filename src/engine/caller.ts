import type { CallerIdentity } from '../model/caller.ts'
import type { JsonObject } from '../model/events.ts'
import { LIMITS } from './limits.ts'

/**
 * The caller as recorded with the task it creates, or nothing when the task's tenant and owner
 * already say it all (an anonymous caller: `creatorOf` rebuilds it), so tasks of a server without
 * authentication carry no extra bytes. Claims are bounded by `LIMITS.callerClaimsBytes`.
 */
export const recordedCaller = (caller: CallerIdentity): CallerIdentity | undefined => {
  if (caller.method === 'none' && caller.scopes.length === 0 && caller.claims === undefined) return undefined
  const recorded: CallerIdentity = {
    principal: caller.principal,
    tenant: caller.tenant,
    scopes: [...caller.scopes],
    method: caller.method,
  }
  if (caller.claims !== undefined) recorded.claims = boundedClaims(caller.claims)
  return recorded
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '')

/**
 * Drops the largest claims until the rest fits: the small ones (subject, e-mail, roles) are what
 * handlers look at, and a token's bulky ones (group lists) would be re-read on every run.
 */
const boundedClaims = (claims: JsonObject): JsonObject => {
  if (bytesOf(claims) <= LIMITS.callerClaimsBytes) return claims
  const bySize = Object.keys(claims).sort((a, b) => bytesOf(claims[b]) - bytesOf(claims[a]))
  const kept: JsonObject = { ...claims }
  for (const name of bySize) {
    delete kept[name]
    if (bytesOf(kept) <= LIMITS.callerClaimsBytes) break
  }
  return kept
}

/**
 * `ctx.caller`: the handler's own copy, which it cannot change for later calls of this run. Only
 * the claims are nested, so only they are deep-copied; the rest is strings, copied as they are.
 * Each member named, not spread: on V8 a frozen copy made by spreading kept each run's objects
 * past the young collections, and the named copy does not (bench/HISTORY.md, _What kept
 * every request's objects_).
 */
export const frozenCaller = (caller: CallerIdentity): CallerIdentity => {
  const copy: CallerIdentity = {
    principal: caller.principal,
    tenant: caller.tenant,
    scopes: Object.freeze([...caller.scopes]),
    method: caller.method,
  }
  if (caller.claims !== undefined) copy.claims = structuredClone(caller.claims)
  return Object.freeze(copy)
}
