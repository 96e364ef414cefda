/**
 * Regression: a connection reset in the middle of a write transaction used to surface as an
 * unhandled 'error' event on the checked-out client and kill the process. Now the write fails,
 * the broken client is discarded, and the store works again once the database is back.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DEFAULT_SCOPE } from '../../src/model/task.ts'
import { nowIso } from '../../src/model/time.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request, startServer } from '../helpers/server.ts'
import { type PgProxy, startPgProxy } from '../replicas/pg-proxy.ts'

let db: TestDatabase
let proxy: PgProxy

describe('PostgreSQL connection resets', { skip: pgSkip }, () => {
  before(async () => {
    db = await createTestDatabase('outage')
    proxy = await startPgProxy(db.url)
  })
  after(async () => {
    await proxy?.close()
    await db?.drop()
  })

  it('a reset during writes fails those writes, does not crash, and the store recovers', async () => {
    const store = new PostgresStore({ connectionString: proxy.url, schema: db.schema(), poolSize: 4 })
    await store.init()
    const create = (i: number) =>
      store.createTask({
        header: {
          id: crypto.randomUUID(),
          ...DEFAULT_SCOPE,
          agent: 'a',
          contextId: 'c',
          createdAt: nowIso(),
        },
        input: { i },
      })
    let stop = false
    let failures = 0
    let successes = 0
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          await create(w * 10_000 + i)
          successes += 1
        } catch {
          failures += 1
        }
      }
    })
    // Each reset comes once writes are going through again, however slowly they do, and while a
    // write or its answer is on its way: the partition holds it until the reset, so the reset
    // always cuts one (a reset between two batches of the group commit could find only idle
    // connections).
    const moreSuccesses = async (what: string) => {
      const before = successes
      await eventually(async () => (successes >= before + 5 ? true : undefined), 20_000, what)
    }
    const resetDuringAWrite = async () => {
      proxy.partition()
      await eventually(async () => (proxy.heldBytes() > 0 ? true : undefined), 20_000, 'a write held')
      proxy.reset()
      proxy.heal()
    }
    try {
      await moreSuccesses('writes before the first reset')
      await resetDuringAWrite()
      await moreSuccesses('writes after the first reset')
      await resetDuringAWrite()
      await moreSuccesses('writes after the second reset')
    } finally {
      // Also when a wait above failed: the writers would keep the test from ending.
      proxy.heal()
      stop = true
      await Promise.all(writers)
    }
    assert.ok(failures > 0, 'the resets interrupted some writes')
    assert.ok(successes > 0)
    const after = await create(-1)
    assert.equal(after.created, true, 'the store works again after the resets')
    await store.close()
  })

  it('answers 503 UNAVAILABLE, not 500, while the database cannot be reached', async () => {
    const relay = await startPgProxy(db.url)
    const server = await startServer({ store: relay.url })
    try {
      const created = await request(`${server.url}/agents/long-runner/tasks`, {
        body: { input: { steps: 1, step_ms: 0 } },
      })
      assert.equal(created.status, 202)
      await relay.close()
      const clawpedia = await request(`${server.url}/agents/long-runner/tasks/${created.body.task_id}`)
      assert.equal(clawpedia.status, 503)
      assert.equal(clawpedia.body.error.code, 'UNAVAILABLE')
      const a2a = await request(`${server.url}/agents/long-runner/a2a/rest/tasks/${created.body.task_id}`, {
        headers: { 'a2a-version': '1.0' },
      })
      assert.equal(a2a.status, 503)
      assert.equal(a2a.body.error.status, 'UNAVAILABLE')
    } finally {
      await server.close().catch(() => {})
    }
  })
})
