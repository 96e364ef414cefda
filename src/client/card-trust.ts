import { type TrustedKey, verifyCard } from '../dialects/a2a/wire/signature.ts'
import { isObject } from '../model/json.ts'
import type { Discovery } from './card.ts'
import { ClientError } from './errors.ts'
import { type HttpSettings, requestJson } from './http.ts'
import type { CallOptions } from './types.ts'

/** Which A2A card signatures a connection accepts (A2A 1.0 §8.4: JWS over the JCS-canonical card). */
export interface CardTrust {
  /** Keys a card may be signed with: JWKs (tried on signatures with their `kid`, if they have one) or key objects. */
  keys?: TrustedKey[]
  /**
   * A key set you trust, read on every connect. A card's own `jku` is never followed: anyone who
   * can alter a card can also point it at their own keys.
   */
  jwksUrl?: string
  /** Refuse a card that no trusted key has signed, and an agent that has only a (never signed) Clawpedia card. */
  requireSignature?: boolean
}

const untrusted = (message: string, details: Record<string, unknown>): ClientError =>
  new ClientError('CARD_UNTRUSTED', message, { details })

/** The keys of the trusted key set; only the transport settings are shared, never the agent's credentials. */
const fetchJwks = async (url: string, http: HttpSettings, options: CallOptions): Promise<TrustedKey[]> => {
  const transport: HttpSettings = {
    timeoutMs: http.timeoutMs,
    ...(http.dispatcher && { dispatcher: http.dispatcher }),
  }
  const answer = await requestJson(transport, url, {
    headers: { accept: 'application/jwk-set+json, application/json' },
    ...(options.signal && { signal: options.signal }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  })
  const keys = isObject(answer.body) ? answer.body.keys : undefined
  if (answer.status !== 200 || !Array.isArray(keys)) {
    throw untrusted(`the trusted key set at ${url} answered HTTP ${answer.status} without a JWKS`, {
      jwksUrl: url,
      status: answer.status,
    })
  }
  return keys.filter(isObject) as TrustedKey[]
}

/**
 * Holds the discovered cards to the trust policy. A signed A2A card is verified whenever trusted
 * keys are configured, and refused (CARD_UNTRUSTED) when no trusted key verifies it — with or
 * without `requireSignature`: a signature that does not verify means the card was altered or
 * signed by someone else. With `requireSignature`, an unsigned card is refused too, and the
 * Clawpedia card (unsigned by design) is dropped once the A2A card is verified.
 */
export const checkCardTrust = async (
  discovery: Discovery,
  trust: CardTrust | undefined,
  options: CallOptions & { http: HttpSettings },
): Promise<void> => {
  if (!trust) return
  const configured = (trust.keys?.length ?? 0) > 0 || trust.jwksUrl !== undefined
  if (trust.requireSignature && !configured) {
    throw new ClientError(
      'INVALID_REQUEST',
      'cardTrust.requireSignature needs keys or a jwksUrl to verify with',
    )
  }
  const found = discovery.a2a
  if (!found) {
    if (trust.requireSignature)
      throw untrusted(
        `the agent at ${discovery.baseUrl} has no A2A card, and only an A2A card can be signed`,
        {
          url: discovery.baseUrl,
        },
      )
    return
  }
  const signed = Array.isArray(found.card.signatures) && found.card.signatures.length > 0
  if (!signed) {
    if (trust.requireSignature)
      throw untrusted(`the agent card at ${found.url} is not signed`, { url: found.url, reason: 'unsigned' })
    return
  }
  if (!configured) return
  const keys = [...(trust.keys ?? [])]
  if (trust.jwksUrl !== undefined) keys.push(...(await fetchJwks(trust.jwksUrl, options.http, options)))
  const verification = await verifyCard(found.card, keys)
  if (!verification.verified) {
    throw untrusted(`the agent card at ${found.url} is not signed by a trusted key: ${verification.detail}`, {
      url: found.url,
      reason: verification.reason,
    })
  }
  found.signedBy = verification.kid ?? ''
  if (trust.requireSignature && discovery.clawpedia) {
    delete discovery.clawpedia
    discovery.warnings.push('Clawpedia card ignored: it is not signed, and a signed card is required')
  }
}
