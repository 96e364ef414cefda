import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { classifyStatus } from '../../src/push/attempt.ts'
import { nextDelay, parseRetryAfter } from '../../src/push/backoff.ts'

describe('backoff', () => {
  test('full jitter spans [0, min(cap, base * 2^attempt)]', () => {
    const at = (attempt: number, r: number) =>
      nextDelay({ attempt, baseMs: 100, capMs: 1_000, random: () => r })
    assert.equal(at(0, 0), 0)
    assert.equal(at(0, 0.999999), 100)
    assert.equal(at(2, 0.999999), 400)
    assert.equal(at(3, 0.5), 400)
    assert.equal(at(10, 0.999999), 1_000)
    assert.equal(at(5_000, 0.999999), 1_000, 'no overflow on huge attempts')
  })

  test('random draws stay inside the window', () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const delay = nextDelay({ attempt, baseMs: 500, capMs: 60_000 })
      assert.ok(delay >= 0 && delay <= Math.min(60_000, 500 * 2 ** attempt), `${attempt}: ${delay}`)
    }
  })

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-30T12:00:00Z')
    assert.equal(parseRetryAfter('120', now), 120_000)
    assert.equal(parseRetryAfter(['0'], now), 0)
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 12:00:30 GMT', now), 30_000)
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', now), 0, 'a past date means now')
    for (const bad of [undefined, '', '1.5', '-3', 'soon'])
      assert.equal(parseRetryAfter(bad, now), undefined, String(bad))
  })
})

describe('status classification', () => {
  test('2xx delivers; 408, 429 and 5xx retry; other 4xx and 3xx are permanent', () => {
    assert.equal(classifyStatus(200).outcome, 'delivered')
    assert.equal(classifyStatus(204).outcome, 'delivered')
    for (const status of [408, 429, 500, 502, 503, 504])
      assert.equal(classifyStatus(status).outcome, 'retry', `${status}`)
    for (const status of [301, 302, 400, 401, 403, 404, 410, 422])
      assert.equal(classifyStatus(status).outcome, 'dead', `${status}`)
  })

  test('429 and 503 carry Retry-After; 500 does not', () => {
    assert.deepEqual(classifyStatus(429, '2'), {
      outcome: 'retry',
      error: 'HTTP 429',
      status: 429,
      retryAfterMs: 2_000,
    })
    assert.deepEqual(classifyStatus(503, '1'), {
      outcome: 'retry',
      error: 'HTTP 503',
      status: 503,
      retryAfterMs: 1_000,
    })
    assert.deepEqual(classifyStatus(500, '1'), { outcome: 'retry', error: 'HTTP 500', status: 500 })
  })
})
