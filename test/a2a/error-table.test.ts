/**
 * The error table itself: every Switchboard code maps to an A2A error with the v1.0.1 codes, and
 * internal failures never leak. Plus the one server option that relaxes version checking.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { A2A_ERROR_OF, A2A_ERRORS, toA2aFailure } from '../../src/dialects/a2a/errors.ts'
import { ERROR_CODES, type ErrorCode, SwitchboardError } from '../../src/model/errors.ts'
import { http, rpc, startA2a, type TestServer } from './helpers.ts'

describe('a server that assumes 1.0 when the header is missing', () => {
  let lenient: TestServer
  before(async () => {
    lenient = await startA2a({ a2a: { assumeVersionWhenMissing: true } })
  })
  after(() => lenient.close())

  it('accepts header-less requests but still refuses other versions', async () => {
    const ok = await rpc(lenient.url, 'ListTasks', {}, {})
    assert.deepEqual(ok.body.result.tasks, [])
    const refused = await rpc(lenient.url, 'ListTasks', {}, { 'A2A-Version': '0.3' })
    assert.equal(refused.body.error.code, A2A_ERRORS.VersionNotSupportedError.jsonRpc)
    assert.equal((await http(`${lenient.url}/a2a/rest/tasks`)).status, 200)
  })
})

describe('the error table', () => {
  it('maps every Switchboard error code to an A2A error', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const entry = A2A_ERROR_OF[code]
      assert.ok(entry, `${code} has no A2A mapping`)
      assert.ok(A2A_ERRORS[entry.kind], `${code} maps to an unknown kind`)
      const failure = toA2aFailure(new SwitchboardError(code))
      assert.equal(failure.kind, entry.kind)
      assert.equal(failure.httpStatus, entry.http ?? A2A_ERRORS[entry.kind].http)
    }
    assert.deepEqual(Object.keys(A2A_ERROR_OF).sort(), Object.keys(ERROR_CODES).sort(), 'no stale codes')
  })

  it('uses the v1.0.1 codes and statuses for the A2A errors', () => {
    const table = Object.fromEntries(
      Object.entries(A2A_ERRORS).map(([k, v]) => [k, [v.jsonRpc, v.http, v.status]]),
    )
    assert.deepEqual(table.TaskNotFoundError, [-32001, 404, 'NOT_FOUND'])
    assert.deepEqual(table.TaskNotCancelableError, [-32002, 400, 'FAILED_PRECONDITION'])
    assert.deepEqual(table.PushNotificationNotSupportedError, [-32003, 400, 'FAILED_PRECONDITION'])
    assert.deepEqual(table.UnsupportedOperationError, [-32004, 400, 'FAILED_PRECONDITION'])
    assert.deepEqual(table.ContentTypeNotSupportedError, [-32005, 400, 'INVALID_ARGUMENT'])
    assert.deepEqual(table.InvalidAgentResponseError, [-32006, 500, 'INTERNAL'])
    assert.deepEqual(table.ExtendedAgentCardNotConfiguredError, [-32007, 400, 'FAILED_PRECONDITION'])
    assert.deepEqual(table.ExtensionSupportRequiredError, [-32008, 400, 'FAILED_PRECONDITION'])
    assert.deepEqual(table.VersionNotSupportedError, [-32009, 400, 'FAILED_PRECONDITION'])
  })

  it('never shows an internal error to the client', () => {
    const failure = toA2aFailure(new Error('secret database path /var/x'))
    assert.equal(failure.kind, 'InternalError')
    assert.equal(failure.message, 'internal error')
    assert.ok(failure.internal)
  })
})
