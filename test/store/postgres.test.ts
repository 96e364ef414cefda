import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { isSwitchboardError } from '../../src/model/errors.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { applyEvent } from '../../src/model/fold.ts'
import { nowIso } from '../../src/model/time.ts'
import { createSwitchboard } from '../../src/server/server.ts'
import { quoteSchema } from '../../src/store/postgres/db.ts'
import { migrate } from '../../src/store/postgres/migrate.ts'
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { taskSql } from '../../src/store/postgres/task-sql.ts'
import { appendEvents } from '../../src/store/postgres/task-writes.ts'
import { instantAgent } from '../helpers/agents.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import {
  A2A,
  CLAWPEDIA,
  cancelled,
  completed,
  create,
  SCOPE,
  status,
  textArtifact,
} from './contract/fixtures.ts'
import { storeContract } from './contract.ts'

const SCHEMA_SQL = new URL('../../src/store/postgres/schema.sql', import.meta.url)

describe('PostgreSQL store', { skip: pgSkip }, () => {
  let db: TestDatabase
  let admin: pg.Client
  before(async () => {
    db = await createTestDatabase('store')
    admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
  })
  after(async () => {
    await admin?.end()
    await db?.drop()
  })

  // Every case on a schema of its own, never the default name: nothing may hard-code it.
  storeContract('postgres', async () => new PostgresStore({ connectionString: db.url, schema: db.schema() }))

  /** The shape of a schema: its columns and indexes, to compare before and after a migration. */
  const shapeOf = async (schema: string) => {
    const columns = await admin.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = $1 ORDER BY table_name, column_name`,
      [schema],
    )
    const indexes = await admin.query(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 1',
      [schema],
    )
    return { columns: columns.rows, indexes: indexes.rows }
  }
  const migrations = async (schema: string) =>
    (await admin.query(`SELECT version, applied_at FROM "${schema}".migrations ORDER BY version`)).rows

  describe('pool size', () => {
    it('is 10 unless set; below 1 is refused; the server passes postgres.poolSize through', async () => {
      const defaults = new PostgresStore({ connectionString: db.url, schema: db.schema() })
      assert.equal(defaults.poolSize, 10)
      await defaults.close()
      assert.throws(
        () => new PostgresStore({ connectionString: db.url, schema: db.schema(), poolSize: 0 }),
        /poolSize must be a whole number of at least 1, got 0/,
      )
      const switchboard = await createSwitchboard({
        agents: [instantAgent],
        store: db.url,
        postgres: { poolSize: 3 },
        logger: false,
        port: 0,
      })
      try {
        assert.equal((switchboard.store as PostgresStore).poolSize, 3)
        await switchboard.store.ping()
      } finally {
        await switchboard.close()
      }
    })
  })

  describe('migrations', () => {
    it('migrating twice is a no-op', async () => {
      const schema = db.schema()
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await store.init()
        const shape = await shapeOf(schema)
        const applied = await migrations(schema)
        assert.deepEqual(
          applied.map((m) => m.version),
          POSTGRES_MIGRATIONS.map((_, i) => i + 1),
        )
        await store.init()
        assert.deepEqual(await shapeOf(schema), shape)
        assert.deepEqual(await migrations(schema), applied)
      } finally {
        await store.close()
      }
    })

    it('replicas starting together migrate once', async () => {
      const schema = db.schema()
      const stores = Array.from({ length: 6 }, () => new PostgresStore({ connectionString: db.url, schema }))
      try {
        await Promise.all(stores.map((s) => s.init()))
        assert.equal((await migrations(schema)).length, POSTGRES_MIGRATIONS.length)
      } finally {
        await Promise.all(stores.map((s) => s.close()))
      }
    })

    it('refuses a schema newer than it knows', async () => {
      const schema = db.schema()
      const first = new PostgresStore({ connectionString: db.url, schema })
      await first.init()
      await first.close()
      await admin.query(`INSERT INTO "${schema}".migrations (version) VALUES ($1)`, [
        POSTGRES_MIGRATIONS.length + 1,
      ])
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await assert.rejects(
          store.init(),
          (error: unknown) => isSwitchboardError(error) && /newer/.test(error.message),
        )
      } finally {
        await store.close()
      }
    })

    it('schema.sql names every table and index the migrations create', async () => {
      const schema = db.schema()
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await store.init()
        const dump = readFileSync(SCHEMA_SQL, 'utf8')
        const shape = await shapeOf(schema)
        for (const name of new Set([
          ...shape.columns.map((c) => `${c.table_name}`),
          ...shape.indexes.map((i) => `${i.indexname}`),
        ])) {
          assert.match(dump, new RegExp(`\\b${name}\\b`), `schema.sql is stale: ${name} is missing`)
        }
      } finally {
        await store.close()
      }
    })
  })

  describe('data migrations', () => {
    it('3 gives stored A2A targets artifacts: true, and leaves other targets as they were', async () => {
      const schema = db.schema()
      const pool = new pg.Pool({ connectionString: db.url })
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await migrate(pool, schema, POSTGRES_MIGRATIONS.slice(0, 2))
        const { task } = await create(store, { pushTargets: [A2A, CLAWPEDIA] })
        await store.init()
        assert.deepEqual(
          (await store.listPushConfigs(SCOPE, task.id)).map((c) => c.target),
          [{ ...A2A, artifacts: true }, CLAWPEDIA],
        )
      } finally {
        await Promise.all([pool.end(), store.close()])
      }
    })
  })

  describe('migration 5: idempotency keys', () => {
    it('moves the keys of a version 4 schema, dated by their task, matching any request until the window ends', async () => {
      const schema = db.schema()
      const pool = new pg.Pool({ connectionString: db.url })
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await migrate(pool, schema, POSTGRES_MIGRATIONS.slice(0, 4))
        const createdAt = new Date(Date.now() - 60_000).toISOString()
        const { task } = await create(store, { header: { createdAt } })
        await admin.query(`UPDATE ${quoteSchema(schema)}.tasks SET idempotency_key = 'clawpedia:k-1'`)
        await store.init()
        const day = 86_400_000
        const retry = await create(store, {
          idempotency: { key: 'clawpedia:k-1', fingerprint: 'any', windowMs: day },
        })
        assert.equal(retry.created, false, 'a key from before fingerprints matches any request')
        assert.equal(retry.task.id, task.id)
        // Dated by its task, a minute ago: a window shorter than that has let it go.
        const later = await create(store, {
          idempotency: { key: 'clawpedia:k-1', fingerprint: 'f', windowMs: 30_000 },
        })
        assert.equal(later.created, true)
        const { columns, indexes } = await shapeOf(schema)
        assert.equal(
          columns.some((c) => c.table_name === 'tasks' && c.column_name === 'idempotency_key'),
          false,
        )
        assert.equal(
          indexes.some((i) => i.indexname === 'tasks_idempotency'),
          false,
        )
      } finally {
        await Promise.all([pool.end(), store.close()])
      }
    })
  })

  describe('migrations 6 and 8: one events row per write; artifact rows lead to their events', () => {
    it('reads the per-event rows of a version 5 schema as batches of one, finds its artifacts, and appends after them', async () => {
      const schema = db.schema()
      const s = quoteSchema(schema)
      const pool = new pg.Pool({ connectionString: db.url })
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await migrate(pool, schema, POSTGRES_MIGRATIONS.slice(0, 5))
        const { task } = await create(store)
        const artifact = textArtifact(task.id)
        const working = await store.append({ taskId: task.id, events: [status('WORKING')] })
        // An artifact as version 5 wrote one: its event, and a row holding a copy of it.
        const artifactEvent: TaskEvent = { kind: 'artifact', artifact, seq: 4, at: nowIso() }
        const folded = structuredClone(working.task)
        applyEvent(folded, artifactEvent)
        await admin.query(`INSERT INTO ${s}.events (task_id, seq, body) VALUES ($1, 4, $2)`, [
          task.id,
          JSON.stringify([artifactEvent]),
        ])
        await admin.query(
          `INSERT INTO ${s}.artifacts (id, task_id, tenant, owner, meta) VALUES ($1, $2, $3, $4, $5)`,
          [artifact.id, task.id, SCOPE.tenant, SCOPE.owner, JSON.stringify(artifact)],
        )
        await admin.query(`UPDATE ${s}.tasks SET version = 4, snapshot = $2 WHERE id = $1`, [
          task.id,
          JSON.stringify(folded),
        ])
        // A row with no artifact event, which no store wrote: 8 drops it.
        const orphan = textArtifact(task.id)
        await admin.query(
          `INSERT INTO ${s}.artifacts (id, task_id, tenant, owner, meta) VALUES ($1, $2, $3, $4, $5)`,
          [orphan.id, task.id, SCOPE.tenant, SCOPE.owner, JSON.stringify(orphan)],
        )
        // Version 5 kept one row per event: put the rows this store wrote back into that shape.
        await admin.query(
          `WITH batches AS (DELETE FROM ${s}.events RETURNING task_id, body)
           INSERT INTO ${s}.events (task_id, seq, body)
           SELECT b.task_id, (e.value->>'seq')::int, e.value FROM batches b, json_array_elements(b.body) AS e(value)`,
        )
        const v5 = await admin.query(`SELECT seq, body::text AS body FROM ${s}.events ORDER BY seq`)
        assert.deepEqual(
          v5.rows.map((r) => r.seq),
          [1, 2, 3, 4],
        )
        await store.init()
        const events = [...(await store.readEvents(task.id, 0))]
        assert.deepEqual(
          events.map((e) => e.seq),
          [1, 2, 3, 4],
        )
        assert.deepEqual(events.slice(2), [...working.events, artifactEvent])
        assert.deepEqual(await store.readEvents(task.id, 2, 1), [working.events[0]])
        assert.deepEqual(await store.getArtifact(SCOPE, artifact.id), { artifact })
        assert.equal(await store.getArtifact(SCOPE, orphan.id), undefined)
        // Each row keeps its text as written, now inside an array of one.
        const migrated = await admin.query(`SELECT body::text AS body FROM ${s}.events ORDER BY seq`)
        assert.deepEqual(
          migrated.rows.map((r) => r.body),
          v5.rows.map((r) => `[${r.body}]`),
        )
        const done = await store.append({ taskId: task.id, events: [completed] })
        assert.deepEqual(await store.readEvents(task.id, 3), [artifactEvent, ...done.events])
        assert.deepEqual(await store.getTask(SCOPE, task.id), done.task)
        // Retention finds the artifact of a migrated row.
        assert.equal(
          await store.deleteExpiredTasks({
            finishedBefore: new Date(Date.now() + 3_600_000).toISOString(),
            limit: 10,
          }),
          1,
        )
        assert.equal(await store.getArtifact(SCOPE, artifact.id), undefined)
      } finally {
        await Promise.all([pool.end(), store.close()])
      }
    })
  })

  describe('compare-and-set', () => {
    it('an append whose task row moved past the version it read fails with VERSION_CONFLICT, writing nothing', async () => {
      const schema = db.schema()
      const store = new PostgresStore({ connectionString: db.url, schema })
      // The row lock keeps other writers out between the read and the update, so the read itself is
      // made stale: it reports the version before the one the row is at.
      const pool = new pg.Pool({ connectionString: db.url })
      const sql = taskSql(quoteSchema(schema))
      const stale = {
        ...sql.taskForUpdate,
        name: 'test_stale_task_for_update',
        text: sql.taskForUpdate.text.replace('t.version,', 't.version - 1 AS version,'),
      }
      try {
        await store.init()
        const { task } = await create(store)
        await assert.rejects(
          appendEvents(
            { pool, sql: { ...sql, taskForUpdate: stale }, replicaTag: 'r1' },
            { taskId: task.id, events: [status('WORKING')] },
          ),
          (error: unknown) => isSwitchboardError(error) && error.code === 'VERSION_CONFLICT',
        )
        assert.deepEqual(await store.getTask(SCOPE, task.id), task)
        assert.equal((await store.readEvents(task.id, 0)).length, 2)
      } finally {
        await Promise.all([pool.end(), store.close()])
      }
    })
  })

  describe('notifications', () => {
    /** Collects NOTIFY payloads on both channels while `work` runs, until they settle. */
    const notesDuring = async (work: () => Promise<unknown>) => {
      const listener = new pg.Client({ connectionString: db.url })
      await listener.connect()
      const notes: string[] = []
      listener.on('notification', (n) => notes.push(`${n.channel}:${n.payload}`))
      try {
        await listener.query('LISTEN switchboard_events')
        await listener.query('LISTEN switchboard_work')
        await work().catch(() => {})
        await listener.query('SELECT 1') // notifications sent before this round trip have arrived
        return notes
      } finally {
        await listener.end()
      }
    }

    it('sends a task note at commit, a work note when the work is claimable, nothing on failure', async () => {
      const store = new PostgresStore({ connectionString: db.url, schema: db.schema(), replicaTag: 'r1' })
      try {
        await store.init()
        let taskId = ''
        assert.deepEqual(
          await notesDuring(async () => {
            taskId = (await create(store)).task.id
          }),
          [`switchboard_events:r1|${taskId}|2`, 'switchboard_work:r1'],
        )
        const leased = await notesDuring(() => create(store, { lease: { owner: 'r1', ttlMs: 60_000 } }))
        assert.equal(leased.length, 1, 'a task created leased is no work for others')
        assert.deepEqual(
          await notesDuring(() =>
            store.append({ taskId, events: [status('WORKING'), status('INPUT_REQUIRED', { prompt: '?' })] }),
          ),
          [`switchboard_events:r1|${taskId}|4`],
        )
        assert.deepEqual(
          await notesDuring(() =>
            store.append({
              taskId,
              scope: SCOPE,
              events: [{ kind: 'input', input: {} }, status('WORKING')],
              requestRun: true,
            }),
          ),
          [`switchboard_events:r1|${taskId}|6`, 'switchboard_work:r1'],
        )
        await store.append({ taskId, events: [cancelled] })
        assert.deepEqual(await notesDuring(() => store.append({ taskId, events: [cancelled] })), [])
      } finally {
        await store.close()
      }
    })
  })
})
