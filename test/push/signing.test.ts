import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signPayload, verifySignature } from '../../src/outbound/signing.ts'

const secret = 'whsec_test'
const body = JSON.stringify({ taskId: 't-1', seq: 3, state: 'WORKING' })
const now = 1_800_000_000

describe('webhook signatures', () => {
  test('the header has the documented shape', () => {
    assert.match(signPayload(secret, body, now), /^t=1800000000,v1=[0-9a-f]{64}$/)
  })

  test('a fresh signature of the same body verifies', () => {
    const header = signPayload(secret, body, now)
    assert.equal(verifySignature({ secret, header, body, nowSeconds: now }), true)
    assert.equal(verifySignature({ secret, header, body: Buffer.from(body), nowSeconds: now + 299 }), true)
  })

  test('an altered body, another secret or a bad header fails', () => {
    const header = signPayload(secret, body, now)
    assert.equal(
      verifySignature({ secret, header, body: body.replace('WORKING', 'COMPLETED'), nowSeconds: now }),
      false,
    )
    assert.equal(verifySignature({ secret: 'other', header, body, nowSeconds: now }), false)
    for (const bad of [
      undefined,
      '',
      'garbage',
      `t=${now}`,
      'v1=00',
      `t=${now},v1=zz`,
      header.replace(/.$/, ''),
    ]) {
      assert.equal(verifySignature({ secret, header: bad, body, nowSeconds: now }), false, String(bad))
    }
  })

  test('a signature outside the tolerance window fails, in either direction', () => {
    const header = signPayload(secret, body, now)
    assert.equal(verifySignature({ secret, header, body, nowSeconds: now + 301 }), false)
    assert.equal(verifySignature({ secret, header, body, nowSeconds: now - 301 }), false)
    assert.equal(
      verifySignature({ secret, header, body, nowSeconds: now + 3600, toleranceSeconds: 3600 }),
      true,
    )
  })

  test('the timestamp is signed: moving it forward breaks the signature', () => {
    const header = signPayload(secret, body, now).replace(`t=${now}`, `t=${now + 1000}`)
    assert.equal(verifySignature({ secret, header, body, nowSeconds: now + 1000 }), false)
  })

  test('any of several v1 entries may match (secret rotation)', () => {
    const fresh = signPayload(secret, body, now)
    const stale = signPayload('old-secret', body, now).split(',')[1]
    assert.equal(verifySignature({ secret, header: `${fresh},${stale}`, body, nowSeconds: now }), true)
    assert.equal(verifySignature({ secret, header: `t=${now},${stale}`, body, nowSeconds: now }), false)
  })
})
