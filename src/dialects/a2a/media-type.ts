import { A2A_CONTENT_TYPE } from './wire/shapes.ts'

/** The JSON-RPC binding's media type, and what A2A 1.0.0 clients of either binding send. */
export const JSON_CONTENT_TYPE = 'application/json'

/** The two media types an A2A JSON answer may carry. */
export type A2aJsonType = typeof A2A_CONTENT_TYPE | typeof JSON_CONTENT_TYPE

const OFFERS: readonly A2aJsonType[] = [A2A_CONTENT_TYPE, JSON_CONTENT_TYPE]

interface Range {
  type: string
  q: number
}

const mediaTypeOf = (value: string): string => value.split(';', 1)[0]!.trim().toLowerCase()

const parseAccept = (header: string): Range[] =>
  header.split(',').flatMap((entry) => {
    const [type, ...params] = entry.split(';')
    const name = mediaTypeOf(type ?? '')
    if (!name.includes('/')) return []
    const qParam = params.find((p) => p.trim().toLowerCase().startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.trim().slice(2))
    return [{ type: name, q: Number.isFinite(q) ? q : 0 }]
  })

/** How an Accept range names an offer: exactly (2), as `application/*` (1), as `*\/*` (0), or not. */
const specificity = (range: string, offer: string): number => {
  if (range === offer) return 2
  if (range === 'application/*') return 1
  if (range === '*/*') return 0
  return -1
}

/** The most specific range naming the offer (RFC 9110 §12.5.1), with its position. */
const bestRange = (ranges: Range[], offer: string) => {
  let best: { q: number; specificity: number; index: number } | undefined
  ranges.forEach((range, index) => {
    const s = specificity(range.type, offer)
    if (s >= 0 && (best === undefined || s > best.specificity)) best = { q: range.q, specificity: s, index }
  })
  return best
}

/** The offer the Accept header prefers: by q, then how specifically it is named, then by order. */
const preferredByAccept = (header: string | undefined): A2aJsonType | undefined => {
  if (!header) return undefined
  const ranges = parseAccept(header)
  const [a, b] = OFFERS.map((offer) => bestRange(ranges, offer))
  const qa = a?.q ?? 0
  const qb = b?.q ?? 0
  if (qa <= 0 && qb <= 0) return undefined
  if (qa !== qb) return qa > qb ? OFFERS[0] : OFFERS[1]
  if (a!.specificity !== b!.specificity) return a!.specificity > b!.specificity ? OFFERS[0] : OFFERS[1]
  if (a!.index !== b!.index) return a!.index < b!.index ? OFFERS[0] : OFFERS[1]
  return undefined
}

/**
 * The media type of an answer: the one the client asked for (Accept, when it tells the two
 * apart), else the one it sent its body in, else the binding's own (`fallback`). Either way the
 * body is the same JSON; A2A 1.0.0 says application/json, 1.0.1 application/a2a+json for
 * HTTP+JSON, and a client written to either text gets what it expects. An Accept naming neither
 * is disregarded (RFC 9110 allows it) rather than answered with 406.
 */
export const responseType = (
  headers: { accept?: string | undefined; 'content-type'?: string | undefined },
  fallback: A2aJsonType,
): A2aJsonType => {
  const asked = preferredByAccept(headers.accept)
  if (asked) return asked
  const sent = headers['content-type'] === undefined ? undefined : mediaTypeOf(headers['content-type'])
  return OFFERS.find((offer) => offer === sent) ?? fallback
}
