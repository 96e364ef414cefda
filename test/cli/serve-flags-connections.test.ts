import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { connectionsFlags } from '../../src/cli/serve-flags/connections.ts'

describe('the connection flags', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    connectionsFlags.resolve({ flags, env, file })

  it('take the flag, then the environment, then the config file section', () => {
    const file = {
      connections: { headersTimeoutMs: 1, requestTimeoutMs: 2, idleTimeoutMs: 3, maxConnections: 4 },
    }
    assert.deepEqual(resolve({}, {}, file), file)
    assert.deepEqual(
      resolve(
        { requestTimeoutMs: '20' },
        { SWITCHBOARD_HEADERS_TIMEOUT_MS: '10', SWITCHBOARD_MAX_CONNECTIONS: '0' },
        file,
      ),
      { connections: { headersTimeoutMs: 10, requestTimeoutMs: 20, idleTimeoutMs: 3, maxConnections: 0 } },
    )
    assert.deepEqual(resolve({}, {}, {}), {})
  })

  it('refuse what is not a whole number of at least 0, naming where it came from', () => {
    assert.throws(() => resolve({ maxConnections: '-1' }, {}, {}), /--max-connections/)
    assert.throws(
      () => resolve({}, { SWITCHBOARD_IDLE_TIMEOUT_MS: '1.5' }, {}),
      /SWITCHBOARD_IDLE_TIMEOUT_MS/,
    )
    assert.throws(
      () => resolve({}, {}, { connections: { requestTimeoutMs: 'soon' } }),
      /connections\.requestTimeoutMs in the config file/,
    )
  })
})
