import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { storeConnection } from '../../src/store/postgres/db.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually } from '../helpers/server.ts'
import { completed, create, createTask, range, SCOPE, status, textArtifact } from './contract/fixtures.ts'

interface TableReads {
  /** Rows fetched by sequential scans and through indexes. */
  rows: number
  /** Scans of either kind. */
  scans: number
}

/**
 * The worst statistics a store can plan on: a new deployment's tables, analyzed while empty (a
 * restore, a deploy script's ANALYZE), then grown by another replica before any new ANALYZE.
 * The store under test prepares every statement as a generic plan at its first run (what a
 * connection does by itself at a statement's sixth run), on those statistics, and keeps it.
 */
describe('PostgreSQL store plans', { skip: pgSkip }, () => {
  let db: TestDatabase
  let admin: pg.Client
  before(async () => {
    db = await createTestDatabase('plans')
    admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
  })
  after(async () => {
    await admin?.end()
    await db?.drop()
  })

  /** The reads of `tasks` and `push_configs` that backends have reported (they do at the latest on exit). */
  const reads = async (schema: string): Promise<Record<'tasks' | 'push_configs', TableReads>> => {
    const { rows } = await admin.query<{ relname: 'tasks' | 'push_configs'; rows: number; scans: number }>(
      `SELECT relname, (seq_tup_read + coalesce(idx_tup_fetch, 0))::int AS rows,
         (seq_scan + coalesce(idx_scan, 0))::int AS scans
       FROM pg_stat_user_tables WHERE schemaname = $1 AND relname IN ('tasks', 'push_configs')`,
      [schema],
    )
    return Object.fromEntries(rows.map(({ relname, ...counts }) => [relname, counts])) as Record<
      'tasks' | 'push_configs',
      TableReads
    >
  }
  const connectionsLeft = (n: number) =>
    eventually(
      async () => ((await db.openConnections()) === n + 1 ? true : undefined),
      10_000,
      'backends to exit',
    )

  it('reads a task by key on every write, however stale the statistics its plans were made on', async () => {
    const schema = db.schema()
    const grower = new PostgresStore({ connectionString: db.url, schema })
    await grower.init()
    const tables = ['tasks', 'events', 'push_configs', 'idempotency_keys', 'artifacts', 'deliveries']
    for (const table of tables)
      await admin.query(`ALTER TABLE "${schema}".${table} SET (autovacuum_enabled = off)`)
    await admin.query(`ANALYZE ${tables.map((table) => `"${schema}".${table}`).join(', ')}`)

    const url = new URL(db.url)
    url.searchParams.set('options', '-c plan_cache_mode=force_generic_plan')
    const store = new PostgresStore({ connectionString: url.toString(), schema, poolSize: 1 })
    /** A send's writes and reads, as the server makes them; `learn`: append to a task made elsewhere. */
    const lifecycle = async (learn: string): Promise<number> => {
      const { task } = await create(store, { lease: { owner: 'runner', ttlMs: 60_000 } })
      await store.append({ taskId: task.id, leaseOwner: 'runner', events: [status('WORKING')] })
      await store.append({
        taskId: task.id,
        leaseOwner: 'runner',
        releaseLease: true,
        events: [{ kind: 'artifact', artifact: textArtifact(task.id) }, completed],
      })
      await store.append({ taskId: learn, events: [status('WORKING')] })
      await store.claimTasks({ owner: 'runner', limit: 1, ttlMs: 60_000 })
      assert.equal((await store.getTask(SCOPE, task.id))?.state, 'COMPLETED')
      const events = await store.readEvents(task.id, 0)
      assert.deepEqual(events.at(-1), { ...events.at(-1), kind: 'status', state: 'COMPLETED' })
      return 7 // the operations above
    }
    // Plans made while the tables are empty.
    await lifecycle((await createTask(grower)).id)

    const grown = 600
    for (let i = 0; i < grown; i += 100) await Promise.all(range(100).map(() => create(grower)))
    const others = await Promise.all(range(10).map(() => createTask(grower)))
    await grower.close()
    await connectionsLeft(1)
    const before = await reads(schema)
    let operations = 0
    for (const other of others) operations += await lifecycle(other.id)
    await store.close()
    await connectionsLeft(0)
    const after = await reads(schema)

    const tasksRead = after.tasks.rows - before.tasks.rows
    const configScans = after.push_configs.scans - before.push_configs.scans
    // By key, an operation reads a handful of rows; a sequential scan reads all 600 and more.
    assert.ok(tasksRead <= 3 * operations, `${tasksRead} rows of tasks read by ${operations} operations`)
    assert.ok(
      configScans <= 2 * operations,
      `${configScans} scans of push_configs by ${operations} operations`,
    )
  })
})

describe('PostgreSQL store connection settings', () => {
  it('turns sequential scans off, before any options the URL gives', () => {
    assert.deepEqual(storeConnection('postgres://u:p%40ss@db:5432/app'), {
      connectionString: 'postgres://u:p%40ss@db:5432/app',
      options: '-c enable_seqscan=off',
    })
    assert.deepEqual(storeConnection('postgres://db/app?sslmode=require&options=-c%20enable_seqscan%3Don'), {
      connectionString: 'postgres://db/app?sslmode=require',
      options: '-c enable_seqscan=off -c enable_seqscan=on',
    })
    assert.deepEqual(storeConnection('/var/run/postgresql app'), {
      connectionString: '/var/run/postgresql app',
      options: '-c enable_seqscan=off',
    })
  })
})
