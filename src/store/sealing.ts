import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { PushTarget } from '../model/push.ts'

/**
 * Push credentials at rest: everything of a push target but `kind`, `url` and `artifacts` (which
 * the store reads to route and filter notifications) is encrypted with AES-256-GCM into one
 * `sealed` field. The additional authenticated data binds the kind and the URL, so a sealed blob
 * copied onto another target (another URL) does not open.
 */

/** A keyring: the first key seals, every key opens (rotation: put the new key first). */
export interface Keyring {
  readonly keys: readonly SecretKey[]
}

export interface SecretKey {
  /** Derived from the key itself, so operators never name keys: the first 8 base64url characters of its SHA-256. */
  readonly id: string
  readonly key: Buffer
}

/** A target as stored once sealed: the routing fields in clear, the rest in `sealed`. */
export interface SealedTarget extends PushTarget {
  sealed: string
}

const VERSION = 'v1'
const PUBLIC_FIELDS = new Set(['kind', 'url', 'artifacts'])

/** A key from its base64 form (standard or url-safe); anything but 32 bytes is refused. */
export const secretKeyOf = (base64: string): SecretKey => {
  const key = Buffer.from(base64.trim(), 'base64')
  if (key.length !== 32)
    throw new TypeError(
      `a secrets key must be 32 bytes in base64 (openssl rand -base64 32), got ${key.length} bytes`,
    )
  return { id: createHash('sha256').update(key).digest('base64url').slice(0, 8), key }
}

export const keyringOf = (base64Keys: readonly string[]): Keyring => {
  if (base64Keys.length === 0) throw new TypeError('a keyring needs at least one key')
  const keys: SecretKey[] = []
  for (const encoded of base64Keys) {
    const key = secretKeyOf(encoded)
    if (!keys.some((k) => k.id === key.id)) keys.push(key)
  }
  return { keys }
}

const aadOf = (target: PushTarget): Buffer =>
  Buffer.from(`switchboard push target ${VERSION}\n${target.kind}\n${target.url}`)

/** The target's public part: what stays in clear, and all that is left when a seal cannot be opened. */
export const publicPartOf = (target: PushTarget): PushTarget => {
  const part: PushTarget = { kind: target.kind, url: target.url }
  if (target.artifacts !== undefined) part.artifacts = target.artifacts
  return part
}

export const isSealed = (target: PushTarget): target is SealedTarget =>
  typeof (target as Partial<SealedTarget>).sealed === 'string'

/** Seals a target's credentials; a target with nothing beyond its public part is stored as is. */
export const sealTarget = (keyring: Keyring, target: PushTarget): PushTarget => {
  const secret = Object.fromEntries(Object.entries(target).filter(([name]) => !PUBLIC_FIELDS.has(name)))
  if (Object.keys(secret).length === 0) return target
  const { id, key } = keyring.keys[0]!
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(aadOf(target))
  const body = Buffer.concat([
    cipher.update(JSON.stringify(secret), 'utf8'),
    cipher.final(),
    cipher.getAuthTag(),
  ])
  const sealed: SealedTarget = {
    ...publicPartOf(target),
    sealed: `${VERSION}.${id}.${iv.toString('base64url')}.${body.toString('base64url')}`,
  }
  return sealed
}

/**
 * The target as it was given. A target without a seal (stored before encryption was on, or with no
 * credentials) is returned as is. Throws an Error saying why when the seal does not open: unknown
 * key, or a blob tampered with or moved to another target.
 */
export const openTarget = (keyring: Keyring, target: PushTarget): PushTarget => {
  if (!isSealed(target)) return target
  const [version, keyId, iv, body] = target.sealed.split('.')
  if (version !== VERSION || !keyId || !iv || !body)
    throw new Error('the push target credentials are sealed in an unknown format')
  const secretKey = keyring.keys.find((k) => k.id === keyId)
  if (!secretKey)
    throw new Error(`the push target credentials are sealed with key ${keyId}, which is not in the keyring`)
  const bytes = Buffer.from(body, 'base64url')
  let plain: string
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKey.key, Buffer.from(iv, 'base64url'))
    decipher.setAAD(aadOf(target))
    decipher.setAuthTag(bytes.subarray(bytes.length - 16))
    plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
      'utf8',
    )
  } catch {
    throw new Error(
      'the push target credentials do not open: the sealed value was altered or belongs to another target',
    )
  }
  return { ...(JSON.parse(plain) as object), ...publicPartOf(target) }
}
