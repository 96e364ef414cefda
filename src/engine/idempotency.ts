import { hash } from 'node:crypto'
import { canonicalJsonText } from '../model/json.ts'
import type { IdempotencyKey } from '../store/contract.ts'
import { LIMITS } from './limits.ts'

/**
 * A creation's deduplication, as a dialect asks for it: `key` names the request (the store scopes
 * it by the caller's tenant and principal), `request` is what makes two requests the same — the
 * dialect decides (an A2A message without its ids, a Clawpedia input), the engine adds the agent.
 */
export interface Idempotency {
  key: string
  request: unknown
}

/**
 * SHA-256 of the JCS (RFC 8785) form: the same JSON in any key order, or with its numbers written
 * differently, has one fingerprint. Undefined members are left out, as JSON leaves them out.
 * `hash` is one native call: a Hash object costs more than the digest of a message this size.
 */
export const fingerprintOf = (value: unknown): string =>
  hash('sha256', canonicalJsonText(value) ?? 'null', 'base64url')

/** The key as the store records it: the fingerprint of the request for this agent, and the window. */
export const storedKey = (
  idempotency: Idempotency,
  agent: string,
  windowMs: number = LIMITS.idempotencyWindowMs,
): IdempotencyKey => ({
  key: idempotency.key,
  fingerprint: fingerprintOf({ agent, request: idempotency.request }),
  windowMs,
})
