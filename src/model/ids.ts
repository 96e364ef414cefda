import { randomFillSync } from 'node:crypto'

/**
 * Every id Switchboard mints (task, context, artifact, message, push config, delivery) is a
 * version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter and 62 random
 * bits. Ids minted later sort later, so rows keyed by them are appended at the right edge of their
 * B-trees: a commit dirties a few shared pages instead of one random page per row and index, which
 * was most of what a durable write cost. The counter keeps ids of one millisecond in order.
 */
export const newId = (): string => {
  let now = Date.now()
  if (now <= lastMs) {
    // Same millisecond (or the clock stepped back): count on from the last id, never repeat one.
    now = lastMs
    counter += 1
    if (counter > 0xfff) {
      now += 1
      counter = 0
    }
  } else {
    counter = 0
  }
  lastMs = now
  if (offset + 8 > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const r = pool
  const o = offset
  offset += 8
  const high = Math.floor(now / 0x1000000)
  const low = now % 0x1000000
  hexAt(0, (high >>> 16) & 0xff)
  hexAt(2, (high >>> 8) & 0xff)
  hexAt(4, high & 0xff)
  hexAt(6, low >>> 16)
  hexAt(9, (low >>> 8) & 0xff)
  hexAt(11, low & 0xff)
  hexAt(14, 0x70 | (counter >>> 8))
  hexAt(16, counter & 0xff)
  hexAt(19, 0x80 | (r[o]! & 0x3f))
  hexAt(21, r[o + 1]!)
  for (let i = 2; i < 8; i++) hexAt(20 + 2 * i, r[o + i]!)
  // One flat string of 36 bytes. Joining the 20 pieces made a tree of concatenations instead,
  // which the first use of the id (a Map key, JSON, a bound statement) then had to copy out:
  // about half a kilobyte of garbage per id, and a stream mints one per artifact.
  return text.toString('latin1', 0, 36)
}

/** The two hex digits of each byte value, as character codes. */
const HEX_DIGITS = new Uint8Array(512)
for (let byte = 0; byte < 256; byte++) {
  HEX_DIGITS[2 * byte] = '0123456789abcdef'.charCodeAt(byte >>> 4)
  HEX_DIGITS[2 * byte + 1] = '0123456789abcdef'.charCodeAt(byte & 0xf)
}
/** The id being written: its dashes stay where they are, each call overwrites the digits. */
const text = Buffer.alloc(36, '-')
const hexAt = (at: number, byte: number): void => {
  text[at] = HEX_DIGITS[2 * byte]!
  text[at + 1] = HEX_DIGITS[2 * byte + 1]!
}
const pool = Buffer.allocUnsafe(4096)
let offset = pool.length
let lastMs = 0
let counter = 0

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value)
