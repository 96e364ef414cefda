import {
  base64url,
  type CryptoKey,
  decodeProtectedHeader,
  FlattenedSign,
  flattenedVerify,
  type JWK,
  type KeyObject,
  type ProtectedHeaderParameters,
} from 'jose'
import { canonicalJsonText } from '../../../model/json.ts'
import type { AgentCardSignature } from './shapes.ts'

/**
 * A2A 1.0 Agent Card signatures (spec §8.4): a JWS (RFC 7515) over the card in its JCS form
 * (RFC 8785) without its `signatures` member, with a detached payload. Server and client share
 * this file so both build exactly the same bytes.
 */

/**
 * The algorithms a card may be signed with: asymmetric ones only. A symmetric key (HS256) would
 * have to be published with the key set, and then anyone could sign.
 */
export const CARD_SIGNING_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
] as const
export type CardSigningAlgorithm = (typeof CARD_SIGNING_ALGORITHMS)[number]

/** A private key (or CryptoKey), what the signature says about it, and where its public half is published. */
export interface CardSigningKey {
  kid: string
  alg: CardSigningAlgorithm
  key: KeyObject | CryptoKey
  /** The URL of the JWKS that holds the public key (`jku`). */
  jku: string
}

/** A key a verifier trusts: a JWK (its `kid`, when it has one, must match the signature's) or a key object. */
export type TrustedKey = JWK | KeyObject | CryptoKey

/** The signed bytes of a card: its JCS form without `signatures`. */
export const cardPayload = (card: object): Uint8Array => {
  const { signatures: _ignored, ...unsigned } = card as { signatures?: unknown }
  const text = canonicalJsonText(unsigned)
  if (text === undefined) throw new TypeError('the card cannot be canonicalized')
  return new TextEncoder().encode(text)
}

/** One detached signature of a card. */
export const signCard = async (card: object, key: CardSigningKey): Promise<AgentCardSignature> => {
  const jws = await new FlattenedSign(cardPayload(card))
    .setProtectedHeader({ alg: key.alg, typ: 'JOSE', kid: key.kid, jku: key.jku })
    .sign(key.key)
  return { protected: jws.protected!, signature: jws.signature }
}

/** The outcome of checking a card's signatures: which key verified it, or why none did. */
export type CardVerification =
  | { verified: true; kid: string | undefined }
  | { verified: false; reason: 'unsigned' | 'not-verified'; detail: string }

const isJwk = (key: TrustedKey): key is JWK =>
  typeof key === 'object' && key !== null && 'kty' in key && typeof (key as JWK).kty === 'string'

/** The signature's protected header, or undefined when it is not one. */
const headerOf = (signature: Partial<AgentCardSignature>): ProtectedHeaderParameters | undefined => {
  if (typeof signature?.protected !== 'string' || typeof signature.signature !== 'string') return undefined
  try {
    return decodeProtectedHeader({ protected: signature.protected, payload: '', signature: '' })
  } catch {
    return undefined
  }
}

/**
 * Checks a card's signatures against trusted keys. One that verifies is enough: a card may carry
 * several during a key rotation. A trusted JWK is tried only on signatures with its `kid`; a key
 * without one on every signature. A card that is signed but verified by no trusted key was
 * altered, or signed by someone else: `not-verified`.
 */
export const verifyCard = async (card: object, trusted: readonly TrustedKey[]): Promise<CardVerification> => {
  const raw = (card as { signatures?: unknown }).signatures
  const signatures = Array.isArray(raw) ? (raw as Partial<AgentCardSignature>[]) : []
  if (signatures.length === 0)
    return { verified: false, reason: 'unsigned', detail: 'the card has no signatures' }
  const payload = base64url.encode(cardPayload(card))
  const failures: string[] = []
  for (const [index, signature] of signatures.entries()) {
    const header = headerOf(signature)
    if (!header) {
      failures.push(`signature ${index} is not a JWS`)
      continue
    }
    const candidates = trusted.filter((key) => !isJwk(key) || key.kid === undefined || key.kid === header.kid)
    for (const key of candidates) {
      try {
        await flattenedVerify(
          { protected: signature.protected!, signature: signature.signature!, payload },
          key,
          { algorithms: [...CARD_SIGNING_ALGORITHMS] },
        )
        return { verified: true, kid: header.kid }
      } catch {
        // The next trusted key may be the one.
      }
    }
    failures.push(
      candidates.length === 0
        ? `signature ${index} is by key ${header.kid ?? '(no kid)'}, which is not trusted`
        : `signature ${index} (kid ${header.kid ?? 'none'}) does not verify with the trusted keys`,
    )
  }
  return { verified: false, reason: 'not-verified', detail: failures.join('; ') }
}
