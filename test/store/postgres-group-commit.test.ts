import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import pg from 'pg'
import type { EventBody } from '../../src/model/events.ts'
import { TRANSACTION_ATTEMPTS } from '../../src/store/postgres/db.ts'
import { BATCH_LIMIT } from '../../src/store/postgres/group-commit.ts'
import { EVENTS_CHANNEL, parseTaskNotes } from '../../src/store/postgres/notify.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import {
  A2A,
  cancelled,
  completed,
  create,
  createTask,
  range,
  rejectsWith,
  SCOPE,
  status,
  textArtifact,
  workingTask,
} from './contract/fixtures.ts'

/** The queries every pg client of this process sends while `work` runs: their names, texts and parameters. */
const queriesDuring = async <T>(
  work: () => Promise<T>,
): Promise<{ result: T; queries: string[]; texts: string[]; values: unknown[][] }> => {
  const queries: string[] = []
  const texts: string[] = []
  const values: unknown[][] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const named = config as { name?: string; text?: string; values?: unknown[] }
    const name = typeof config === 'string' ? config : (named.name ?? named.text ?? '?')
    // The group commit's statements are one per batch shape (batch-sql.ts): counted as one name.
    queries.push(name.replace(/^sb_commit_batch_\d+$/, 'sb_commit_batch'))
    texts.push(typeof config === 'string' ? config : (named.text ?? ''))
    values.push(typeof config === 'string' ? [] : (named.values ?? []))
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest)
  } as typeof query
  try {
    return { result: await work(), queries, texts, values }
  } finally {
    pg.Client.prototype.query = query
  }
}

const artifactEvent = (taskId: string): EventBody => ({ kind: 'artifact', artifact: textArtifact(taskId) })

describe('PostgreSQL group commit', { skip: pgSkip }, () => {
  let db: TestDatabase
  const stores: PostgresStore[] = []
  /** A store on a fresh schema; `of` another store: a second replica on the same schema. */
  const open = async (of?: PostgresStore): Promise<PostgresStore> => {
    const store = new PostgresStore({ connectionString: db.url, schema: of?.schema ?? db.schema() })
    stores.push(store)
    await store.init()
    return store
  }
  before(async () => {
    db = await createTestDatabase('group')
  })
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()))
  })
  after(async () => {
    await db?.drop()
  })

  it('commits the creations of one turn, then their appends, in one round trip each', async () => {
    const store = await open()
    await createTask(store) // the statements are prepared on some connection: not what is counted
    const created = await queriesDuring(() => Promise.all(range(8).map(() => create(store))))
    assert.deepEqual(created.queries, ['sb_commit_batch'])
    const tasks = created.result.map((r) => r.task)
    const appended = await queriesDuring(() =>
      Promise.all(
        tasks.map((task) =>
          store.append({ taskId: task.id, events: [status('WORKING'), artifactEvent(task.id), completed] }),
        ),
      ),
    )
    assert.deepEqual(appended.queries, ['sb_commit_batch'])
    for (const task of tasks) {
      const events = await store.readEvents(task.id, 0)
      assert.deepEqual(
        events.map((e) => e.seq),
        [1, 2, 3, 4, 5],
      )
      assert.equal((await store.getTask(SCOPE, task.id))?.state, 'COMPLETED')
    }
  })

  it('runs each batch on a statement with only the parts it holds', async () => {
    const store = await open()
    /** The tables the one batch statement of `work` writes, in the order it writes them. */
    const writes = async (work: () => Promise<unknown>): Promise<string[]> => {
      const { queries, texts } = await queriesDuring(work)
      assert.deepEqual(queries, ['sb_commit_batch'])
      return [...texts[0]!.matchAll(/(INSERT INTO|UPDATE) "[^"]+"\.(\w+)/g)].map((m) => m[2]!)
    }
    const plain = await writes(() => Promise.all(range(3).map(() => create(store))))
    assert.deepEqual(plain, ['tasks', 'events'])
    const idempotency = { key: 'k-shape', fingerprint: 'f', windowMs: 60_000 }
    const keyed = await writes(() => Promise.all([create(store, { idempotency }), create(store)]))
    assert.deepEqual(keyed, ['idempotency_keys', 'tasks', 'events'])
    const task = await workingTask(store)
    const withArtifact = await writes(() =>
      store.append({ taskId: task.id, events: [artifactEvent(task.id)] }),
    )
    assert.deepEqual(withArtifact, ['tasks', 'events', 'artifacts'])
    await store.putPushConfig(SCOPE, {
      id: 'c',
      taskId: task.id,
      createdAt: new Date().toISOString(),
      target: A2A,
    })
    // The row this store knows predates the config: that append is redone on the locked path, which
    // learns the config, so the next one commits in a batch with its delivery.
    await store.append({
      taskId: task.id,
      events: [{ kind: 'artifact', artifact: { ...textArtifact(task.id), id: 'b' } }],
    })
    const pushed = await writes(() => store.append({ taskId: task.id, events: [completed] }))
    assert.deepEqual(pushed, ['tasks', 'events', 'deliveries'])
    const deliveries = await store.listDeliveries({ taskId: task.id, limit: 10 })
    assert.deepEqual(
      deliveries
        .sort((x, y) => x.seq - y.seq)
        .map((d) => (d.event.kind === 'status' ? d.event.state : d.event.kind)),
      ['artifact', 'COMPLETED'],
    )
  })

  it('splits a turn of more than BATCH_LIMIT writes into batches', async () => {
    const store = await open()
    await createTask(store)
    const { result, queries } = await queriesDuring(() =>
      Promise.all(range(BATCH_LIMIT + 3).map(() => createTask(store))),
    )
    assert.deepEqual(queries, ['sb_commit_batch', 'sb_commit_batch'])
    const versions = await store.versionsOf(result.map((task) => task.id))
    assert.equal(versions.size, BATCH_LIMIT + 3)
  })

  it('folds an append onto the one before it, in the same turn or still committing', async () => {
    const store = await open()
    const task = await workingTask(store)
    const { result, queries } = await queriesDuring(async () => {
      const early = store.append({ taskId: task.id, events: [artifactEvent(task.id)] })
      const late = store.append({ taskId: task.id, events: [artifactEvent(task.id)] })
      // A turn later the first batch is in flight: the next append waits for it, not for the row lock.
      await new Promise((resolve) => setImmediate(resolve))
      const last = store.append({ taskId: task.id, events: [completed] })
      return Promise.all([early, late, last])
    })
    assert.deepEqual(queries, ['sb_commit_batch', 'sb_commit_batch', 'sb_commit_batch'])
    const [first, , second] = result
    assert.deepEqual([first.events[0]?.seq, second.events[0]?.seq], [task.version + 1, task.version + 3])
    assert.equal(second.task.artifacts.length, 2)
    assert.deepEqual(await store.getTask(SCOPE, task.id), second.task)
  })

  it('writes the appends of a batch in task id order, the order lease renewals lock rows in', async () => {
    // Batches of two replicas that lock the same rows in one order wait for each other, never in a
    // cycle (a deadlock, which PostgreSQL breaks by aborting one after deadlock_timeout).
    const store = await open()
    const tasks = await Promise.all(range(16).map(() => workingTask(store)))
    const ids = tasks.map((t) => t.id)
    const shuffled = [...ids.slice(8), ...ids.slice(0, 8).reverse()]
    const { queries, values } = await queriesDuring(() =>
      Promise.all(shuffled.map((taskId) => store.append({ taskId, events: [completed] }))),
    )
    assert.deepEqual(queries, ['sb_commit_batch'])
    const written = values[0]!.find(
      (v): v is string[] => Array.isArray(v) && v.length === ids.length && ids.includes(v[0] as string),
    )
    assert.deepEqual(written, [...ids].sort())
  })

  it('redoes an append on the locked path when another replica moved the task on', async () => {
    const store = await open()
    const replica = await open(store)
    const task = await workingTask(store)
    await replica.append({ taskId: task.id, events: [cancelled] })
    const { queries } = await queriesDuring(() =>
      rejectsWith(store.append({ taskId: task.id, events: [completed] }), 'TASK_TERMINAL'),
    )
    assert.ok(queries.includes('sb_commit_batch') && queries.includes('sb_task_for_update'), String(queries))
    const events = await store.readEvents(task.id, 0)
    assert.deepEqual(
      events.map((e) => [e.seq, e.kind === 'status' && e.state]),
      [
        [1, false],
        [2, 'SUBMITTED'],
        [3, 'WORKING'],
        [4, 'CANCELLED'],
      ],
    )
  })

  it('notifies a push config another replica added after the row was known', async () => {
    const store = await open()
    const replica = await open(store)
    const task = await workingTask(store)
    const config = await replica.putPushConfig(SCOPE, {
      id: 'late',
      taskId: task.id,
      createdAt: new Date().toISOString(),
      target: A2A,
    })
    await store.append({ taskId: task.id, events: [completed] })
    const deliveries = await store.listDeliveries({ taskId: task.id, limit: 10 })
    assert.deepEqual(
      deliveries.map((d) => [d.configId, d.event.kind === 'status' && d.event.state]),
      [[config.id, 'COMPLETED']],
    )
  })

  it('lets a refused write fail alone, the rest of its batch commits', async () => {
    const store = await open()
    const [a, b] = await Promise.all([workingTask(store), workingTask(store)])
    const taken = textArtifact(a.id)
    await store.append({ taskId: a.id, events: [{ kind: 'artifact', artifact: taken }] })
    const [refused, landed] = await Promise.allSettled([
      // The artifact's id is taken: its insert violates the primary key, and fails the whole statement.
      store.append({ taskId: b.id, events: [{ kind: 'artifact', artifact: { ...taken, taskId: b.id } }] }),
      store.append({ taskId: a.id, events: [completed] }),
    ])
    assert.equal(refused.status, 'rejected')
    assert.equal(landed.status, 'fulfilled')
    assert.equal((await store.getTask(SCOPE, a.id))?.state, 'COMPLETED')
    assert.equal((await store.getTask(SCOPE, b.id))?.version, b.version)
  })

  it('redoes a write the database aborted as a deadlock victim, on the batch and on the locked path', async () => {
    // A real deadlock needs three transactions in a cycle through a row's tuple lock (db.ts); the
    // database's answer to every member it aborts is this error, injected here on the events
    // inserts: the `fail` first ones are rolled back as a deadlock victim's would be.
    const store = await open()
    const sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    const s = `"${store.schema}"`
    const failFirst = (fail: number) =>
      sql.query(
        `SELECT setval('${s}.injected', 1, false); ALTER FUNCTION ${s}.victim() SET sb.fail = '${fail}'`,
      )
    try {
      await sql.query(`CREATE SEQUENCE ${s}.injected;
        CREATE FUNCTION ${s}.victim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          IF nextval('${s}.injected') <= current_setting('sb.fail')::int THEN
            RAISE EXCEPTION 'deadlock detected (injected)' USING ERRCODE = 'deadlock_detected';
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER victim BEFORE INSERT ON ${s}.events FOR EACH ROW EXECUTE FUNCTION ${s}.victim()`)
      await failFirst(0)
      const task = await workingTask(store)
      // The batch's statement, then the locked path's first transaction, are the victims.
      await failFirst(2)
      const { result, queries } = await queriesDuring(() =>
        store.append({ taskId: task.id, events: [artifactEvent(task.id)] }),
      )
      assert.deepEqual(
        queries.filter((q) => q.startsWith('sb_')),
        [
          'sb_commit_batch',
          'sb_task_for_update',
          'sb_commit_append',
          'sb_task_for_update',
          'sb_commit_append',
        ],
      )
      assert.equal(result.task.version, task.version + 1)
      // The row remembered is the committed one: the next append lands in its batch at once.
      const next = await queriesDuring(() => store.append({ taskId: task.id, events: [completed] }))
      assert.deepEqual(next.queries, ['sb_commit_batch'])
      await failFirst(2)
      const creation = await createTask(store)
      assert.equal((await store.getTask(SCOPE, creation.id))?.state, 'SUBMITTED')
      // A victim on every attempt is a fault: the write fails after TRANSACTION_ATTEMPTS, changing nothing.
      const stuck = await workingTask(store)
      await failFirst(1 + TRANSACTION_ATTEMPTS)
      await assert.rejects(store.append({ taskId: stuck.id, events: [completed] }), { code: '40P01' })
      assert.deepEqual(await store.getTask(SCOPE, stuck.id), stuck)
      const events = await store.readEvents(task.id, 0)
      assert.deepEqual(
        events.map((e) => e.seq),
        range(task.version + 2).map((i) => i + 1),
      )
    } finally {
      await sql.end()
    }
  })

  it('creates one task for two creations with one idempotency key in one turn', async () => {
    const store = await open()
    const idempotency = { key: 'k1', fingerprint: 'f', windowMs: 60_000 }
    const [first, second] = await Promise.all([
      create(store, { idempotency }),
      create(store, { idempotency }),
    ])
    assert.deepEqual([first.created, second.created], [true, false])
    assert.equal(second.task.id, first.task.id)
  })

  it('sends one notification per batch, a note per task', async () => {
    const store = await open()
    const listener = new pg.Client({ connectionString: db.url })
    await listener.connect()
    const payloads: string[] = []
    try {
      const heard = new Promise<void>((resolve) => {
        listener.on('notification', (n) => {
          if (n.channel === EVENTS_CHANNEL) payloads.push(n.payload ?? '')
          resolve()
        })
      })
      await listener.query(`LISTEN ${EVENTS_CHANNEL}`)
      const tasks = await Promise.all(range(5).map(() => createTask(store)))
      await heard
      assert.equal(payloads.length, 1)
      const notes = parseTaskNotes(payloads[0]!)
      assert.deepEqual(
        notes.map((n) => [n.replicaTag, n.seq]),
        tasks.map(() => [store.replicaTag, 2]),
      )
      assert.deepEqual(new Set(notes.map((n) => n.taskId)), new Set(tasks.map((t) => t.id)))
    } finally {
      await listener.end()
    }
  })
})
