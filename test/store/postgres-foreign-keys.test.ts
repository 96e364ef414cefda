import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { isSwitchboardError } from '../../src/model/errors.ts'
import { quoteSchema } from '../../src/store/postgres/db.ts'
import { migrate } from '../../src/store/postgres/migrate.ts'
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually } from '../helpers/server.ts'
import { A2A, completed, create, SCOPE, status } from './contract/fixtures.ts'

describe('PostgreSQL store without foreign keys', { skip: pgSkip }, () => {
  let db: TestDatabase
  let admin: pg.Client
  before(async () => {
    db = await createTestDatabase('nofk')
    admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
  })
  after(async () => {
    await admin?.end()
    await db?.drop()
  })

  describe('migration 7: no foreign keys to tasks', () => {
    const foreignKeys = async (schema: string): Promise<number> =>
      (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
           WHERE n.nspname = $1 AND c.contype = 'f'`,
          [schema],
        )
      ).rows[0]!.n

    it('drops the four foreign keys of a version 6 schema and keeps its rows', async () => {
      const schema = db.schema()
      const pool = new pg.Pool({ connectionString: db.url })
      const store = new PostgresStore({ connectionString: db.url, schema })
      try {
        await migrate(pool, schema, POSTGRES_MIGRATIONS.slice(0, 6))
        assert.equal(await foreignKeys(schema), 4)
        const { task } = await create(store)
        const done = await store.append({ taskId: task.id, events: [status('WORKING'), completed] })
        await store.init()
        assert.equal(await foreignKeys(schema), 0)
        assert.deepEqual(await store.getTask(SCOPE, done.task.id), done.task)
        assert.equal((await store.readEvents(task.id, 0)).length, 4)
      } finally {
        await Promise.all([pool.end(), store.close()])
      }
    })

    it('a push config put on a task being deleted waits for the delete, then finds no task', async () => {
      const schema = db.schema()
      const s = quoteSchema(schema)
      const store = new PostgresStore({ connectionString: db.url, schema })
      const deleter = new pg.Client({ connectionString: db.url })
      try {
        await store.init()
        await deleter.connect()
        const { task } = await create(store)
        // What retention does to a finished task, held open: the row is gone once this commits.
        await deleter.query('BEGIN')
        await deleter.query(`DELETE FROM ${s}.events WHERE task_id = $1`, [task.id])
        await deleter.query(`DELETE FROM ${s}.tasks WHERE id = $1`, [task.id])
        const put = store.putPushConfig(SCOPE, {
          id: 'late',
          taskId: task.id,
          createdAt: new Date().toISOString(),
          target: A2A,
        })
        const refused = assert.rejects(
          put,
          (e: unknown) => isSwitchboardError(e) && e.code === 'TASK_NOT_FOUND',
        )
        await eventually(
          async () => {
            const { rows } = await admin.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = 'switchboard-store'
               AND wait_event_type = 'Lock' AND query LIKE '%push_configs%'`,
            )
            return rows.length === 1 ? true : undefined
          },
          10_000,
          'the put to wait for the deleting transaction',
        )
        await deleter.query('COMMIT')
        await refused
        const orphans = await admin.query(`SELECT 1 FROM ${s}.push_configs WHERE task_id = $1`, [task.id])
        assert.equal(orphans.rowCount, 0)
      } finally {
        await Promise.all([deleter.end(), store.close()])
      }
    })
  })
})
