import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { instantAgent } from '../helpers/agents.ts'
import { request, startServer } from '../helpers/server.ts'

const dir = mkdtempSync(join(tmpdir(), 'switchboard-ready-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('liveness and readiness', () => {
  it('/readyz answers 200 while the store answers, and 503 UNAVAILABLE once it does not; /healthz stays 200', {
    timeout: 60_000,
  }, async () => {
    const store = new SqliteStore({ filename: join(dir, 'ready.db') })
    let failing: false | 'refused' | 'silent' = false
    // The store as the server sees it, with a ping that fails on demand (a database gone away).
    const flaky = new Proxy(store, {
      get(target, key) {
        if (key === 'ping') {
          return () =>
            failing === 'refused'
              ? Promise.reject(new Error('connection refused'))
              : failing === 'silent'
                ? new Promise<void>(() => {})
                : target.ping()
        }
        const value = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const server = await startServer({ agents: [instantAgent], store: flaky })
    try {
      const ready = await request(`${server.url}/readyz`)
      assert.equal(ready.status, 200)
      assert.deepEqual(ready.body, { status: 'ready' })

      failing = 'refused'
      const down = await request(`${server.url}/readyz`)
      assert.equal(down.status, 503)
      assert.equal(down.body.status, 'unavailable')
      assert.equal(down.body.error.code, 'UNAVAILABLE')
      assert.match(down.body.error.message, /task store did not answer/)
      assert.doesNotMatch(JSON.stringify(down.body), /connection refused/, 'the cause is logged, not shown')

      const live = await request(`${server.url}/healthz`)
      assert.equal(live.status, 200)
      assert.equal(live.body.status, 'ok')

      // A store that never answers can only end in 503 by the timeout: that it answers at all shows
      // "not forever"; the lower bound shows the store was given its 2 s (load only adds to it).
      failing = 'silent'
      const startedAt = Date.now()
      assert.equal((await request(`${server.url}/readyz`)).status, 503)
      const waited = Date.now() - startedAt
      assert.ok(waited >= 1_900, `a silent store is given 2 s (${waited} ms)`)

      failing = false
      assert.equal((await request(`${server.url}/readyz`)).status, 200)
    } finally {
      await server.close()
    }
  })
})
