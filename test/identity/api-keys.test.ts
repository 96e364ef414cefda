import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { apiKeyAuthenticator, createApiKey, hashApiKey } from '../../src/identity/api-keys.ts'
import { isSwitchboardError } from '../../src/model/errors.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { SqliteDatabase as Database } from '../../src/store/sqlite/driver.ts'
import { instantAgent } from '../helpers/agents.ts'
import { type JsonResponse, request, startServer, type TestServer } from '../helpers/server.ts'

const BASE = '/agents/instant'
const V = { 'A2A-Version': '1.0' }
const CHALLENGE = 'Bearer realm="switchboard"'

/** The three ways to read a task: Clawpedia, A2A JSON-RPC and A2A HTTP+JSON, each with `headers`. */
const readers = (server: TestServer) => ({
  clawpedia: (taskId: string, headers: Record<string, string>) =>
    request(`${server.url}${BASE}/tasks/${taskId}`, { headers }),
  jsonrpc: (taskId: string, headers: Record<string, string>) =>
    request(`${server.url}${BASE}/a2a/jsonrpc`, {
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } },
      headers: { ...V, ...headers },
    }),
  rest: (taskId: string, headers: Record<string, string>) =>
    request(`${server.url}${BASE}/a2a/rest/tasks/${taskId}`, { headers: { ...V, ...headers } }),
})

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** A task created through Clawpedia with these credentials. */
const submit = async (server: TestServer, headers: Record<string, string>): Promise<string> => {
  const created = await request(`${server.url}${BASE}/tasks`, { body: { input: { n: 1 } }, headers })
  assert.equal(created.status, 202, JSON.stringify(created.body))
  return created.body.task_id as string
}

/** 401 with the challenge, in each dialect's own error shape, never repeating the credential. */
const assertUnauthenticated = (
  dialect: 'clawpedia' | 'jsonrpc' | 'rest',
  response: JsonResponse,
  message: RegExp,
  sent?: string,
) => {
  assert.equal(response.status, 401, `${dialect}: ${JSON.stringify(response.body)}`)
  assert.equal(response.headers.get('www-authenticate'), CHALLENGE)
  if (sent) assert.equal(JSON.stringify(response.body).includes(sent), false, 'the key is echoed')
  switch (dialect) {
    case 'clawpedia':
      assert.equal(response.body.error.code, 'UNAUTHENTICATED')
      assert.match(response.body.error.message, message)
      break
    case 'jsonrpc':
      assert.equal(response.body.jsonrpc, '2.0')
      assert.equal(response.body.error.code, -32000)
      assert.match(response.body.error.message, message)
      break
    case 'rest':
      assert.equal(response.body.error.code, 401)
      assert.equal(response.body.error.status, 'UNAUTHENTICATED')
      assert.match(response.body.error.message, message)
      break
  }
}

/**
 * The random part of a key: its last 43 characters (32 bytes in base64url). Not "after the last
 * underscore": base64url has underscores, and a tail cut short at one is found by chance in any file.
 */
const secretOf = (key: string): string => key.slice(-43)

describe('API keys on a server', () => {
  let server: TestServer
  let alice: string
  let bob: string
  before(async () => {
    server = await startServer({ agents: [instantAgent], identity: { apiKeys: { header: 'X-API-Key' } } })
    const { store } = server.switchboard
    alice = (await createApiKey(store, { principal: 'alice', tenant: 'acme', scopes: [] })).key
    bob = (await createApiKey(store, { principal: 'bob', tenant: 'acme', scopes: [] })).key
  })
  after(() => server.close())

  it('refuses a request without a credential: 401 with WWW-Authenticate in every dialect', async () => {
    const taskId = await submit(server, bearer(alice))
    for (const [dialect, read] of Object.entries(readers(server))) {
      assertUnauthenticated(dialect as never, await read(taskId, {}), /credentials/)
    }
  })

  it('serves a created key as a bearer token and in the configured header, in every dialect', async () => {
    const taskId = await submit(server, bearer(alice))
    for (const headers of [bearer(alice), { 'x-api-key': alice }]) {
      const { clawpedia, jsonrpc, rest } = readers(server)
      const viaClawpedia = await clawpedia(taskId, headers)
      assert.equal(viaClawpedia.status, 200, JSON.stringify(viaClawpedia.body))
      assert.equal(viaClawpedia.body.task_id, taskId)
      const viaRpc = await jsonrpc(taskId, headers)
      assert.equal(viaRpc.body.result?.id, taskId, JSON.stringify(viaRpc.body))
      const viaRest = await rest(taskId, headers)
      assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body))
      assert.equal(viaRest.body.id, taskId)
    }
  })

  it('refuses an unknown, a malformed and a revoked key at once, never echoing it', async () => {
    const { key, record } = await createApiKey(server.switchboard.store, {
      principal: 'carol',
      tenant: 'acme',
      scopes: [],
    })
    const taskId = await submit(server, bearer(key))
    const unknown = `sbk_${randomUUID()}_${'A'.repeat(43)}`
    for (const [dialect, read] of Object.entries(readers(server))) {
      for (const wrong of [unknown, 'sbk_not-a-key']) {
        assertUnauthenticated(
          dialect as never,
          await read(taskId, bearer(wrong)),
          /unknown or revoked API key/,
          wrong,
        )
        assertUnauthenticated(
          dialect as never,
          await read(taskId, { 'x-api-key': wrong }),
          /unknown or revoked API key/,
          wrong,
        )
      }
    }
    assert.equal((await readers(server).clawpedia(taskId, bearer(key))).status, 200)
    assert.equal(await server.switchboard.store.revokeApiKey(record.id), true)
    // The very next request, by either form, in every dialect.
    for (const [dialect, read] of Object.entries(readers(server))) {
      for (const headers of [bearer(key), { 'x-api-key': key }])
        assertUnauthenticated(
          dialect as never,
          await read(taskId, headers),
          /unknown or revoked API key/,
          key,
        )
    }
  })

  it("answers another principal's task exactly like a missing one", async () => {
    const taskId = await submit(server, bearer(alice))
    const missing = randomUUID()
    const { clawpedia, jsonrpc, rest } = readers(server)
    for (const id of [taskId, missing]) {
      const viaClawpedia = await clawpedia(id, bearer(bob))
      assert.equal(viaClawpedia.status, 404)
      assert.equal(viaClawpedia.body.error.code, 'TASK_NOT_FOUND')
      const viaRpc = await jsonrpc(id, bearer(bob))
      assert.equal(viaRpc.body.error?.code, -32001, JSON.stringify(viaRpc.body))
      const viaRest = await rest(id, bearer(bob))
      assert.equal(viaRest.status, 404)
      assert.equal(viaRest.body.error.status, 'NOT_FOUND')
    }
    assert.equal((await clawpedia(taskId, bearer(alice))).status, 200)
  })

  it('leaves a bearer token that is not an API key to the next authenticator', async () => {
    // Alone, nothing else takes it: it is refused as no credential, not as a bad API key.
    const response = await readers(server).clawpedia(randomUUID(), bearer('eyJhbGciOiJIUzI1NiJ9.e30.x'))
    assertUnauthenticated('clawpedia', response, /none were sent/)
  })

  it('keeps the cards and the agent directory public', async () => {
    for (const path of [
      `${BASE}/agent-card.json`,
      `${BASE}/.well-known/agent-card.json`,
      '/agents',
      '/healthz',
    ]) {
      const response = await request(`${server.url}${path}`)
      assert.equal(response.status, 200, path)
    }
  })

  it('never stores a key in clear: the table holds its SHA-256, and no file holds the key', async () => {
    const { key, record } = await createApiKey(server.switchboard.store, {
      principal: 'dave',
      tenant: 'acme',
      scopes: ['tasks:read:tenant'],
      label: 'ci',
    })
    const db = new Database(join(server.dataDir, 'switchboard.db'), { readonly: true })
    try {
      const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(record.id) as Record<string, unknown>
      assert.equal(row.hash, hashApiKey(key))
      assert.match(String(row.hash), /^[0-9a-f]{64}$/)
      const secret = secretOf(key)
      for (const value of Object.values(row)) assert.equal(String(value).includes(secret), false)
    } finally {
      db.close()
    }
    const secret = secretOf(key)
    for (const file of readdirSync(server.dataDir)) {
      assert.equal(readFileSync(join(server.dataDir, file)).includes(secret), false, file)
    }
  })
})

describe('the API key authenticator', () => {
  it('maps a key to its caller: principal, tenant, scopes, method api-key, claims key_id', async () => {
    const store = createMemoryStore()
    try {
      const { key, record } = await createApiKey(store, {
        principal: 'alice',
        tenant: 'acme',
        scopes: ['admin'],
      })
      assert.match(key, /^sbk_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/)
      assert.equal(key.slice(4, 40), record.id)
      const authenticator = apiKeyAuthenticator({ store })
      assert.deepEqual(await authenticator.authenticate({ headers: bearer(key) }), {
        principal: 'alice',
        tenant: 'acme',
        scopes: ['admin'],
        method: 'api-key',
        claims: { key_id: record.id },
      })
      assert.equal(await authenticator.authenticate({ headers: {} }), undefined)
      assert.equal(await authenticator.authenticate({ headers: bearer('a.jwt.token') }), undefined)
      // Without a header of its own, another header is not its kind.
      assert.equal(await authenticator.authenticate({ headers: { 'x-api-key': key } }), undefined)
      await assert.rejects(
        authenticator.authenticate({ headers: bearer(`${key}x`) }),
        (error) => isSwitchboardError(error) && error.code === 'UNAUTHENTICATED',
      )
    } finally {
      await store.close()
    }
  })

  it('declares an A2A SecurityScheme for the form it is reached by; a bad header name is refused', () => {
    const store = createMemoryStore()
    assert.deepEqual(Object.keys(apiKeyAuthenticator({ store }).securityScheme), ['httpAuthSecurityScheme'])
    assert.equal(
      (apiKeyAuthenticator({ store }).securityScheme.httpAuthSecurityScheme as { scheme: string }).scheme,
      'Bearer',
    )
    const header = apiKeyAuthenticator({ store, header: 'X-API-Key' }).securityScheme
    assert.deepEqual(
      { ...(header.apiKeySecurityScheme as object), description: undefined },
      { location: 'header', name: 'X-API-Key', description: undefined },
    )
    for (const bad of ['Authorization', 'X API Key', ''])
      assert.throws(() => apiKeyAuthenticator({ store, header: bad }), /API key header/)
    void store.close()
  })
})
