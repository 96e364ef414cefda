/**
 * The client's tables and small rules, on their own: error mapping (JSON-RPC codes, ErrorInfo
 * reasons, Clawpedia codes, HTTP statuses), the send payload forms, backoff bounds, and
 * Cache-Control freshness, the A2A state table.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CardCache } from '../../src/client/card-cache.ts'
import {
  CLIENT_ERROR_CODES,
  codeOfStatus,
  ERROR_INFO_REASONS,
  fromClawpediaError,
  fromJsonRpcError,
  fromRestError,
  JSON_RPC_CODES,
} from '../../src/client/errors.ts'
import { backoffDelay } from '../../src/client/http.ts'
import { payloadOf } from '../../src/client/payload.ts'
import { decodeTask, encodeMessage } from '../../src/client/transports/a2a-codec.ts'
import { A2A_TASK_STATES, fromA2aState, toA2aState } from '../../src/dialects/a2a/wire/states.ts'
import { ERROR_CODES } from '../../src/model/errors.ts'
import { TASK_STATES } from '../../src/model/states.ts'
import { UUID_V7 } from '../helpers/ids.ts'

const INFO = 'type.googleapis.com/google.rpc.ErrorInfo'

describe('error mapping', () => {
  it('every A2A JSON-RPC code and ErrorInfo reason of the digest has a code', () => {
    for (const code of [
      -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008,
      -32009,
    ]) {
      assert.ok(JSON_RPC_CODES[code], `JSON-RPC ${code}`)
    }
    for (const reason of [
      'TASK_NOT_FOUND',
      'TASK_NOT_CANCELABLE',
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
      'UNSUPPORTED_OPERATION',
      'CONTENT_TYPE_NOT_SUPPORTED',
      'INVALID_AGENT_RESPONSE',
      'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
      'EXTENSION_SUPPORT_REQUIRED',
      'VERSION_NOT_SUPPORTED',
    ]) {
      assert.ok(ERROR_INFO_REASONS[reason], reason)
    }
  })

  it('JSON-RPC: our catalogue code in the ErrorInfo wins, then the reason, then the number', () => {
    const ours = fromJsonRpcError(
      {
        code: -32004,
        message: 'terminal',
        data: [
          {
            '@type': INFO,
            reason: 'UNSUPPORTED_OPERATION',
            metadata: { code: 'TASK_TERMINAL', taskId: 't' },
          },
        ],
      },
      200,
    )
    assert.equal(ours.code, 'TASK_TERMINAL')
    assert.equal(ours.details?.taskId, 't')
    const theirs = fromJsonRpcError(
      { code: -32099, message: 'x', data: [{ '@type': INFO, reason: 'TASK_NOT_CANCELABLE' }] },
      200,
    )
    assert.equal(theirs.code, 'TASK_NOT_CANCELABLE')
    assert.equal(fromJsonRpcError({ code: -32001, message: 'gone' }, 200).code, 'TASK_NOT_FOUND')
    // Switchboard's server-defined codes, read from the code alone (no ErrorInfo).
    assert.equal(fromJsonRpcError({ code: -32020, message: 'no' }, 403).code, 'FORBIDDEN')
    assert.equal(fromJsonRpcError({ code: -32029, message: 'slow down' }, 429).code, 'RATE_LIMITED')
    assert.equal(codeOfStatus(429), 'RATE_LIMITED')
    const bad = fromJsonRpcError(
      {
        code: -32602,
        message: 'invalid',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: '/x', description: 'bad' }],
          },
        ],
      },
      200,
    )
    assert.equal(bad.code, 'INVALID_REQUEST')
    assert.deepEqual(bad.details?.violations, [{ field: '/x', description: 'bad' }])
  })

  it('REST: google.rpc.Status with its reason; a bare status is unreachable only when it means "nothing here"', () => {
    const status = fromRestError(
      {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'no',
          details: [{ '@type': INFO, reason: 'VERSION_NOT_SUPPORTED' }],
        },
      },
      400,
    )
    assert.equal(status.code, 'VERSION_NOT_SUPPORTED')
    assert.equal(status.unreachable, false)
    assert.equal(fromRestError('<html>', 404).unreachable, true)
    assert.equal(fromRestError(undefined, 503).code, 'UNAVAILABLE')
    assert.equal(fromRestError(undefined, 400).unreachable, false)
  })

  it('401 and 403: UNAUTHENTICATED and FORBIDDEN in every shape, with the challenge', () => {
    const challenge = new Headers({ 'www-authenticate': 'Bearer realm="r", error="invalid_token"' })
    const denied = fromRestError(
      {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: 'not yours',
          details: [{ '@type': INFO, reason: 'PERMISSION_DENIED' }],
        },
      },
      403,
    )
    assert.equal(denied.code, 'FORBIDDEN')
    assert.equal(denied.message, 'not yours')
    const bare = fromRestError(undefined, 401, challenge)
    assert.equal(bare.code, 'UNAUTHENTICATED')
    assert.equal(bare.details?.challenge, 'Bearer realm="r", error="invalid_token"')
    const rpc = fromJsonRpcError({ code: -32000, message: 'token expired' }, 200, challenge)
    assert.equal(rpc.code, 'UNAUTHENTICATED')
    assert.equal(rpc.details?.challenge, 'Bearer realm="r", error="invalid_token"')
    const claw = fromClawpediaError({ error: { code: 'FORBIDDEN', message: 'no scope' } }, 403, challenge)
    assert.equal(claw.code, 'FORBIDDEN')
    assert.equal(claw.details?.challenge, 'Bearer realm="r", error="invalid_token"')
    // A challenge on any other error is not an authentication matter.
    assert.equal(fromRestError(undefined, 500, challenge).details, undefined)
  })

  it('Clawpedia: catalogue codes as they are; foreign codes kept in details, mapped by status', () => {
    assert.equal(
      fromClawpediaError({ error: { code: 'TASK_NOT_AWAITING_INPUT', message: 'no' } }, 409).code,
      'TASK_NOT_AWAITING_INPUT',
    )
    const foreign = fromClawpediaError({ error: { code: 'E_NOPE', message: 'nope' } }, 404)
    assert.equal(foreign.code, 'METHOD_NOT_FOUND')
    assert.equal(foreign.details?.remoteCode, 'E_NOPE')
    assert.equal(foreign.status, 404)
  })

  it('every HTTP error status maps to a code of the catalogue or of the client', () => {
    for (let status = 300; status < 600; status++) {
      const code = codeOfStatus(status)
      assert.ok(code in ERROR_CODES || code in CLIENT_ERROR_CODES, `${status} → ${code}`)
    }
    assert.equal(codeOfStatus(401), 'UNAUTHENTICATED')
    assert.equal(codeOfStatus(403), 'FORBIDDEN')
  })
})

describe('payloadOf', () => {
  it('tells an input object from { text } and { message }, and can be told', () => {
    assert.deepEqual(payloadOf({ topic: 'x' }), { input: { topic: 'x' } })
    assert.deepEqual(payloadOf({ text: 'hi' }), { text: 'hi' })
    assert.deepEqual(payloadOf({ text: 'hi' }, 'input'), { input: { text: 'hi' } })
    assert.deepEqual(payloadOf({ text: 'hi', n: 1 }), { input: { text: 'hi', n: 1 } })
    const message = { parts: [{ kind: 'text' as const, text: 'a' }] }
    assert.deepEqual(payloadOf({ message }), { message })
    assert.throws(() => payloadOf([] as never), { code: 'INVALID_REQUEST' })
  })
})

describe('backoff', () => {
  it('grows exponentially to the cap, with jitter within [cap/2, cap]', () => {
    assert.equal(
      backoffDelay(1, 100, 10_000, () => 0),
      50,
    )
    assert.equal(
      backoffDelay(1, 100, 10_000, () => 1),
      100,
    )
    assert.equal(
      backoffDelay(4, 100, 10_000, () => 1),
      800,
    )
    assert.equal(
      backoffDelay(20, 100, 1_000, () => 1),
      1_000,
    )
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(3, 100, 10_000)
      assert.ok(delay >= 200 && delay <= 400, String(delay))
    }
  })
})

describe('CardCache', () => {
  const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null })

  it('max-age (minus Age) makes an entry fresh; no-cache stores it stale; no-store not at all', () => {
    let now = 1_000_000
    const cache = new CardCache({ now: () => now })
    cache.store('a', { n: 1 }, headers({ 'cache-control': 'public, max-age=60', age: '20', etag: '"e"' }))
    assert.equal(cache.isFresh(cache.get('a')!), true)
    now += 39_000
    assert.equal(cache.isFresh(cache.get('a')!), true)
    now += 2_000
    assert.equal(cache.isFresh(cache.get('a')!), false)
    assert.equal(cache.get('a')?.etag, '"e"')
    cache.store('b', {}, headers({ 'cache-control': 'no-cache', etag: '"b"' }))
    assert.equal(cache.isFresh(cache.get('b')!), false)
    cache.store('c', {}, headers({ 'cache-control': 'no-store' }))
    assert.equal(cache.get('c'), undefined)
  })

  it('keeps at most maxEntries, oldest out first', () => {
    const cache = new CardCache({ maxEntries: 2 })
    for (const key of ['a', 'b', 'c']) cache.store(key, {}, headers({}))
    assert.equal(cache.get('a'), undefined)
    assert.equal(cache.size, 2)
  })
})

describe('A2A task states', () => {
  it('one table: every model state goes to its wire name and back, by name, enum number and 0.3 spelling', () => {
    for (const state of TASK_STATES) {
      const name = toA2aState(state)
      assert.equal(fromA2aState(name), state)
      assert.equal(fromA2aState(A2A_TASK_STATES.indexOf(name)), state)
      assert.equal(fromA2aState(name.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-')), state)
    }
    assert.equal(fromA2aState('TASK_STATE_UNSPECIFIED'), undefined)
    assert.equal(fromA2aState(0), undefined)
    assert.equal(fromA2aState(99), undefined)
  })

  it('a state named like an Object.prototype member is unknown, not a state', () => {
    const wire = { id: 't1', contextId: 'c1', status: { state: 'constructor' } }
    assert.throws(() => decodeTask(wire), /unknown task state "constructor"/)
  })
})

describe('encodeMessage', () => {
  it('gives a message without an id a time-ordered one (UUID v7), and keeps one it has', () => {
    const first = String(encodeMessage({ text: 'a' }).messageId)
    const second = String(encodeMessage({ text: 'b' }).messageId)
    assert.match(first, UUID_V7)
    assert.ok(second > first, `${second} sorts after ${first}`)
    const own = encodeMessage({ message: { messageId: 'mine', parts: [{ kind: 'text', text: 'c' }] } })
    assert.equal(own.messageId, 'mine')
  })
})
