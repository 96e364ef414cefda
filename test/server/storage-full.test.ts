import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { watchStorageFull } from '../../src/store/storage-full.ts'
import { request, startServer } from '../helpers/server.ts'

describe('a full disk', () => {
  it('answers 507 STORAGE_FULL, not 500, and /readyz reports the store cannot write', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-full-'))
    const filename = join(dataDir, 'switchboard.db')
    // Made (migrated) first, then reopened capped at its own size: the next pages it needs fail
    // with SQLITE_FULL, as on a full disk.
    await new SqliteStore({ filename }).close()
    const server = await startServer({ store: new SqliteStore({ filename, maxPageCount: 1 }), dataDir })
    try {
      assert.equal((await request(`${server.url}/readyz`)).status, 200)
      let answer = await request(`${server.url}/agents/long-runner/tasks`, {
        method: 'POST',
        body: { input: { steps: 1, note: 'x'.repeat(2000) } },
      })
      // The pages it has left take a few tasks; then there is no room.
      for (let i = 0; answer.status === 202 && i < 1000; i++) {
        answer = await request(`${server.url}/agents/long-runner/tasks`, {
          method: 'POST',
          body: { input: { steps: 1, note: 'x'.repeat(2000) } },
        })
      }
      assert.equal(answer.status, 507, JSON.stringify(answer.body))
      assert.equal(answer.body.error.code, 'STORAGE_FULL')
      const a2a = await request(`${server.url}/agents/long-runner/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'A2A-Version': '1.0' },
        body: {
          message: {
            messageId: 'm1',
            role: 'ROLE_USER',
            parts: [{ data: { steps: 1, note: 'x'.repeat(4000) } }],
          },
        },
      })
      assert.equal(a2a.status, 507, JSON.stringify(a2a.body))
      const ready = await request(`${server.url}/readyz`)
      assert.equal(ready.status, 503)
      assert.equal(ready.body.error.code, 'STORAGE_FULL')
    } finally {
      await server.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("PostgreSQL's disk_full (53100) is STORAGE_FULL too, and readiness holds it for a while", async () => {
    const store = createMemoryStore()
    store.createTask = () =>
      Promise.reject(Object.assign(new Error('could not extend file'), { code: '53100' }))
    let now = 1_000_000
    const originalNow = Date.now
    Date.now = () => now
    try {
      const watched = watchStorageFull(store, 30_000)
      await assert.rejects(watched.createTask({} as never), { code: 'STORAGE_FULL' })
      await assert.rejects(watched.ping(), { code: 'STORAGE_FULL' })
      now += 30_000
      await watched.ping()
    } finally {
      Date.now = originalNow
      await store.close()
    }
  })
})
