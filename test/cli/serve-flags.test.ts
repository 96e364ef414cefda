import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { a2aVersionFlags } from '../../src/cli/serve-flags/a2a-versions.ts'
import { accessFlags } from '../../src/cli/serve-flags/access.ts'
import { firstSet, mergeOptions } from '../../src/cli/serve-flags/group.ts'
import { idempotencyFlags } from '../../src/cli/serve-flags/idempotency.ts'

describe('serve flag groups', () => {
  it('take the flag, then the environment, then the file', () => {
    assert.equal(firstSet('flag', 'env', 'file'), 'flag')
    assert.equal(firstSet(undefined, 'env', 'file'), 'env')
    assert.equal(firstSet(undefined, '', 'file'), 'file')
    assert.equal(firstSet<string>(undefined, undefined, undefined), undefined)
  })

  it('merge the sections two groups fill, concatenating their lists', () => {
    const a = { name: 'a' } as never
    const b = { name: 'b' } as never
    const merged = mergeOptions([
      { identity: { authenticators: [a] }, port: 1 },
      { identity: { authenticators: [b], allowAnonymous: false } },
      { port: 2 },
    ])
    assert.deepEqual(merged, { identity: { authenticators: [a, b], allowAnonymous: false }, port: 2 })
  })
})

describe('--access', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    accessFlags.resolve({ flags, env, file })

  it('reads the config file section, replaced whole by the environment, replaced by the flag', () => {
    const file = { access: { 'csv-analyst': { principals: ['alice'] } } }
    assert.deepEqual(resolve({}, {}, file), file)
    assert.deepEqual(resolve({}, { SWITCHBOARD_ACCESS: '{"*":{"scopes":["agents:call"]}}' }, file), {
      access: { '*': { scopes: ['agents:call'] } },
    })
    assert.deepEqual(
      resolve({ access: '{"*":{"tenants":["acme"]}}' }, { SWITCHBOARD_ACCESS: '{"*":{}}' }, file),
      { access: { '*': { tenants: ['acme'] } } },
    )
    assert.deepEqual(resolve({}, {}, {}), {})
  })

  it('refuses a malformed rule, naming where it came from', () => {
    assert.throws(() => resolve({ access: '{' }, {}, {}), /--access is not valid JSON/)
    assert.throws(() => resolve({ access: '[]' }, {}, {}), /--access must be an object/)
    assert.throws(
      () => resolve({}, {}, { access: { a: { users: ['x'] } } }),
      /config file section access.*unknown field users/,
    )
    assert.throws(
      () => resolve({ access: '{"a":{"principals":"alice"}}' }, {}, {}),
      /a\.principals must be a list/,
    )
    assert.throws(() => resolve({ access: '{"a":{"scopes":[""]}}' }, {}, {}), /a\.scopes must be a list/)
  })
})

describe('--idempotency-window and --message-id-dedupe', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    idempotencyFlags.resolve({ flags, env, file })

  it('take the flag, then the environment, then the file; nothing set means the defaults', () => {
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.deepEqual(
      resolve(
        { idempotencyWindow: '30m' },
        { SWITCHBOARD_IDEMPOTENCY_WINDOW: '1h' },
        { idempotencyWindow: '2h' },
      ),
      { idempotencyWindowMs: 30 * 60_000 },
    )
    assert.deepEqual(resolve({}, { SWITCHBOARD_IDEMPOTENCY_WINDOW: '1h' }, { idempotencyWindow: '2h' }), {
      idempotencyWindowMs: 3_600_000,
    })
    assert.deepEqual(resolve({}, {}, { idempotencyWindow: '7d' }), { idempotencyWindowMs: 7 * 86_400_000 })
    assert.deepEqual(resolve({ messageIdDedupe: 'off' }, { SWITCHBOARD_MESSAGE_ID_DEDUPE: 'on' }, {}), {
      a2a: { messageIdDedupe: false },
    })
    assert.deepEqual(resolve({}, { SWITCHBOARD_MESSAGE_ID_DEDUPE: 'false' }, {}), {
      a2a: { messageIdDedupe: false },
    })
    assert.deepEqual(resolve({}, {}, { a2a: { messageIdDedupe: false } }), {
      a2a: { messageIdDedupe: false },
    })
    assert.deepEqual(resolve({ messageIdDedupe: 'on' }, {}, { a2a: { messageIdDedupe: false } }), {
      a2a: { messageIdDedupe: true },
    })
  })

  it('refuse a bad value, naming where it came from', () => {
    assert.throws(
      () => resolve({ idempotencyWindow: '0s' }, {}, {}),
      /--idempotency-window must be a duration/,
    )
    assert.throws(
      () => resolve({}, { SWITCHBOARD_IDEMPOTENCY_WINDOW: 'soon' }, {}),
      /SWITCHBOARD_IDEMPOTENCY_WINDOW must be a duration/,
    )
    assert.throws(
      () => resolve({ messageIdDedupe: 'maybe' }, {}, {}),
      /--message-id-dedupe must be on or off/,
    )
    assert.throws(
      () => resolve({}, {}, { a2a: { messageIdDedupe: 'nah' } }),
      /a2a\.messageIdDedupe in the config file must be on or off/,
    )
    assert.throws(() => resolve({}, {}, { a2a: [] }), /"a2a" must be an object/)
  })
})

describe('--a2a-v03', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    a2aVersionFlags.resolve({ flags, env, file })

  it('takes the flag, then the environment, then the file; unset leaves the default (on)', () => {
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.deepEqual(resolve({ a2aV03: 'off' }, { SWITCHBOARD_A2A_V03: 'on' }, { a2a: { v03: true } }), {
      a2a: { v03: false },
    })
    assert.deepEqual(resolve({}, { SWITCHBOARD_A2A_V03: 'no' }, { a2a: { v03: true } }), {
      a2a: { v03: false },
    })
    assert.deepEqual(resolve({}, {}, { a2a: { v03: false } }), { a2a: { v03: false } })
  })

  it('refuses a bad value, naming where it came from', () => {
    assert.throws(() => resolve({ a2aV03: 'sometimes' }, {}, {}), /--a2a-v03 must be on or off/)
    assert.throws(() => resolve({}, {}, { a2a: { v03: 3 } }), /a2a\.v03 in the config file must be on or off/)
  })
})
