import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { apiKeyFlags } from '../../src/cli/serve-flags/api-keys.ts'
import { spawnServer } from '../helpers/process.ts'
import { request } from '../helpers/server.ts'
import { cli } from './helpers.ts'

const resolve = (
  flags: Record<string, unknown>,
  env: Record<string, string> = {},
  file: Record<string, unknown> = {},
) => apiKeyFlags.resolve({ flags, env, file })

describe('serve --api-keys and --api-key-header', () => {
  it('are off unless asked for; on by the flag, the environment or the config file', () => {
    assert.deepEqual(resolve({}), {})
    const on = { identity: { apiKeys: {} } }
    assert.deepEqual(resolve({ apiKeys: true }), on)
    assert.deepEqual(resolve({}, { SWITCHBOARD_API_KEYS: '1' }), on)
    assert.deepEqual(resolve({}, { SWITCHBOARD_API_KEYS: 'true' }), on)
    assert.deepEqual(resolve({}, {}, { auth: { apiKeys: true } }), on)
    assert.deepEqual(resolve({}, {}, { auth: { apiKeys: {} } }), on)
    assert.deepEqual(resolve({}, {}, { auth: { apiKeys: false } }), {})
  })

  it('take the flag over the environment over the file', () => {
    const header = (name: string) => ({ identity: { apiKeys: { header: name } } })
    assert.deepEqual(resolve({}, { SWITCHBOARD_API_KEYS: '0' }, { auth: { apiKeys: true } }), {})
    assert.deepEqual(resolve({ apiKeys: true }, { SWITCHBOARD_API_KEYS: '0' }), { identity: { apiKeys: {} } })
    assert.deepEqual(resolve({}, {}, { auth: { apiKeys: { header: 'X-File' } } }), header('X-File'))
    assert.deepEqual(
      resolve({}, { SWITCHBOARD_API_KEY_HEADER: 'X-Env' }, { auth: { apiKeys: { header: 'X-File' } } }),
      header('X-Env'),
    )
    assert.deepEqual(
      resolve({ apiKeyHeader: 'X-Flag' }, { SWITCHBOARD_API_KEY_HEADER: 'X-Env' }),
      header('X-Flag'),
    )
  })

  it('refuse bad values, naming the setting', () => {
    assert.throws(
      () => resolve({}, { SWITCHBOARD_API_KEYS: 'yes please' }),
      /SWITCHBOARD_API_KEYS \(--api-keys\)/,
    )
    assert.throws(() => resolve({ apiKeyHeader: 'X API Key' }), /--api-key-header: .*"X API Key"/)
    assert.throws(
      () => resolve({ apiKeyHeader: 'Authorization' }),
      /--api-key-header: .*other than Authorization/,
    )
    for (const apiKeys of ['yes', 1, { header: 3 }, { name: 'X-Key' }, null])
      assert.throws(
        () => resolve({}, {}, { auth: { apiKeys } }),
        /auth\.apiKeys in the config file \(--api-keys\)/,
      )
    assert.throws(() => resolve({}, {}, { auth: 'keys' }), /auth in the config file must be an object/)
  })
})

describe('switchboard serve --api-keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-serve-keys-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses calls without a key and serves a key made with switchboard keys create', async () => {
    const made = await cli(['keys', 'create', '--principal', 'alice', '--data', dir])
    assert.equal(made.code, 0, made.stderr)
    const key = made.stdout.trim()
    const server = await spawnServer(['--api-keys', '--api-key-header', 'X-API-Key', '--data', dir])
    try {
      const tasks = `${server.url}/agents/long-runner/a2a/rest/tasks`
      const v = { 'A2A-Version': '1.0' }
      const refused = await request(tasks, { headers: v })
      assert.equal(refused.status, 401)
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="switchboard"')
      assert.equal((await request(tasks, { headers: { ...v, authorization: `Bearer ${key}` } })).status, 200)
      assert.equal((await request(tasks, { headers: { ...v, 'x-api-key': key } })).status, 200)
      assert.equal((await request(`${server.url}/agents/long-runner/agent-card.json`)).status, 200)
    } finally {
      await server.stop()
    }
    assert.equal(server.output().includes(key.slice(41)), false, 'the key reached the output')
  })
})
