/**
 * model/json.ts, canonicalJsonText: the JCS form (RFC 8785) the idempotency fingerprints and the
 * card signatures are made of. It must write exactly what the canonicalize package wrote before
 * it, or a retry across an upgrade would no longer match its own fingerprint.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import canonicalize from 'canonicalize'
import { fingerprintOf } from '../../src/engine/idempotency.ts'
import { canonicalJsonText } from '../../src/model/json.ts'

/** A small deterministic generator (mulberry32): the same corpus every run. */
const random = (seed: number): (() => number) => {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = [
  'a',
  'Z',
  '1',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\u0000',
  '\u001f',
  'é',
  '€',
  '\ufb33',
  '😀',
  '\u2028',
  'ß',
]
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1e21,
  1e-7,
  333333333.3333333,
  4.5,
  2e-3,
  1e-27,
  Number.MAX_SAFE_INTEGER,
  5e-324,
]

const corpus = (count: number): unknown[] => {
  const next = random(19)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const text = (): string => Array.from({ length: Math.floor(next() * 6) }, () => pick(PIECES)).join('')
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 3 ? 5 : 8))
    if (kind === 0) return null
    if (kind === 1) return next() < 0.5
    if (kind === 2) return pick(NUMBERS) * (next() < 0.5 ? 1 : 1 + Math.floor(next() * 1000))
    if (kind === 3) return text()
    if (kind === 4) return next() * 1e6 - 5e5
    if (kind === 5) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1))
    const object: Record<string, unknown> = {}
    for (let i = Math.floor(next() * 5); i > 0; i--)
      object[text()] = next() < 0.1 ? undefined : value(depth + 1)
    return object
  }
  return Array.from({ length: count }, () => value(0))
}

describe('canonicalJsonText (JCS, RFC 8785)', () => {
  it("writes RFC 8785's example as the RFC does", () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    )
    assert.equal(
      canonicalJsonText(input),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    )
  })

  it('sorts member names by their UTF-16 code units', () => {
    const names = ['\u20ac', '\r', '\ufb33', '1', '\ud83d\ude00', '\u0080', '\u00f6']
    const text = canonicalJsonText(Object.fromEntries(names.map((name, i) => [name, i])))!
    assert.deepEqual(Object.keys(JSON.parse(text)), [
      '1',
      '\r',
      '\u0080',
      '\u00f6',
      '\u20ac',
      '\ud83d\ude00',
      '\ufb33',
    ])
    assert.equal(text, '{"\\r":1,"1":3,"\u0080":5,"ö":6,"€":0,"😀":4,"דּ":2}')
  })

  it('writes what the canonicalize package wrote, for 3,000 generated values', () => {
    for (const value of corpus(3000))
      assert.equal(canonicalJsonText(value), canonicalize(value), JSON.stringify(value))
  })

  it('leaves out what JSON leaves out, and has no form for undefined', () => {
    assert.equal(canonicalJsonText(undefined), undefined)
    assert.equal(canonicalJsonText({ b: undefined, a: [undefined, 1], c: () => 1 }), '{"a":[null,1]}')
    assert.equal(canonicalJsonText({ when: new Date(0) }), '{"when":"1970-01-01T00:00:00.000Z"}')
  })

  it('refuses half a surrogate pair, in a value or a name, and numbers JSON has not', () => {
    for (const value of [
      '\ud800',
      { text: 'x\udc00' },
      { ['\ud83d']: 1 },
      [Number.NaN],
      { n: Number.POSITIVE_INFINITY },
    ])
      assert.throws(() => canonicalJsonText(value), TypeError, JSON.stringify(value))
  })

  it("keeps a message's fingerprint as it was (the same members in any order, one fingerprint)", () => {
    const message = { role: 'user', parts: [{ kind: 'text', text: 'hello €' }], metadata: { b: 2, a: 1 } }
    const reordered = { metadata: { a: 1, b: 2 }, parts: [{ text: 'hello €', kind: 'text' }], role: 'user' }
    assert.equal(fingerprintOf(message), fingerprintOf(reordered))
    // SHA-256 of the JCS text, base64url: what the store holds for keys recorded before this change.
    assert.equal(
      fingerprintOf(message),
      createHash('sha256').update(canonicalize(message)!).digest('base64url'),
    )
  })
})
