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
  return (
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[low >>> 16]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | (counter >>> 8)]! +
    HEX[counter & 0xff]! +
    '-' +
    HEX[0x80 | (r[o]! & 0x3f)]! +
    HEX[r[o + 1]!]! +
    '-' +
    HEX[r[o + 2]!]! +
    HEX[r[o + 3]!]! +
    HEX[r[o + 4]!]! +
    HEX[r[o + 5]!]! +
    HEX[r[o + 6]!]! +
    HEX[r[o + 7]!]!
  )
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const pool = Buffer.allocUnsafe(4096)
let offset = pool.length
let lastMs = 0
let counter = 0

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value)
