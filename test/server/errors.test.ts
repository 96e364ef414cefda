import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SwitchboardError } from '../../src/model/errors.ts'
import { asSwitchboardError } from '../../src/web/errors.ts'

describe('asSwitchboardError', () => {
  const cases: [string, unknown, string][] = [
    ['a catalogue error passes through', new SwitchboardError('TASK_NOT_FOUND'), 'TASK_NOT_FOUND'],
    ['an oversized body', { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }, 'PAYLOAD_TOO_LARGE'],
    [
      'an unknown content type',
      { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 },
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a refused database connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'UNAVAILABLE',
    ],
    [
      'a reset connection',
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      'UNAVAILABLE',
    ],
    [
      'PostgreSQL shutting down (57P01)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
      'UNAVAILABLE',
    ],
    [
      'a connection failure (08006)',
      Object.assign(new Error('connection failure'), { code: '08006' }),
      'UNAVAILABLE',
    ],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly'), 'UNAVAILABLE'],
    [
      'pg: a constraint violation is a bug, not an outage',
      Object.assign(new Error('duplicate key'), { code: '23505' }),
      'INTERNAL',
    ],
    ['anything else', new TypeError('x is undefined'), 'INTERNAL'],
  ]
  for (const [name, error, code] of cases) {
    it(name, () => {
      const mapped = asSwitchboardError(error)
      assert.equal(mapped.code, code)
      if (code === 'INTERNAL') assert.equal(mapped.message, 'internal error', 'internals are not shown')
    })
  }
})
