import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Optional webhook signatures: `Switchboard-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`
 * over `<t>.<body>`. The timestamp is signed too, so a captured notification cannot be replayed
 * outside the tolerance window. Several `v1=` entries may appear (secret rotation); one match is
 * enough.
 */
export const SIGNATURE_HEADER = 'Switchboard-Signature'

type Body = string | Uint8Array

const nowInSeconds = (): number => Math.floor(Date.now() / 1000)

const hmac = (secret: string, timestamp: number, body: Body): Buffer =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest()

/** The header value for `body`, signed now (or at `nowSeconds`). */
export const signPayload = (secret: string, body: Body, nowSeconds: number = nowInSeconds()): string =>
  `t=${nowSeconds},v1=${hmac(secret, nowSeconds, body).toString('hex')}`

export interface VerifySignatureOptions {
  secret: string
  header: string | undefined
  body: Body
  /** How far the signed timestamp may be from now, either way. Default 300. */
  toleranceSeconds?: number
  nowSeconds?: number
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i

/** True when the header carries a fresh timestamp and a v1 signature of exactly this body. */
export const verifySignature = ({
  secret,
  header,
  body,
  toleranceSeconds = 300,
  nowSeconds = nowInSeconds(),
}: VerifySignatureOptions): boolean => {
  if (!header) return false
  let timestamp: number | undefined
  const candidates: Buffer[] = []
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2)
    if (key === 't' && value !== undefined && /^\d+$/.test(value)) timestamp = Number(value)
    else if (key === 'v1' && value !== undefined && HEX_SHA256.test(value))
      candidates.push(Buffer.from(value, 'hex'))
  }
  if (timestamp === undefined || candidates.length === 0) return false
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false
  const expected = hmac(secret, timestamp, body)
  // Compare against every candidate so the time taken does not say which one matched.
  let matched = false
  for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched
  return matched
}
