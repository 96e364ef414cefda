import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type BetterSqlite3 from 'better-sqlite3'
import { isSwitchboardError } from '../../src/model/errors.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { fold } from '../../src/model/fold.ts'
import { newId } from '../../src/model/ids.ts'
import type { Task } from '../../src/model/task.ts'
import { openingEvents } from '../../src/store/opening.ts'
import { SqliteDatabase as Database } from '../../src/store/sqlite/driver.ts'
import { migrate } from '../../src/store/sqlite/migrate.ts'
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { A2A, CLAWPEDIA, create, header, SCOPE, status, textArtifact } from './contract/fixtures.ts'
import { storeContract } from './contract.ts'

// One temporary directory for the file, one database file per case.
const dir = mkdtempSync(join(tmpdir(), 'switchboard-sqlite-'))
let n = 0
after(() => rmSync(dir, { recursive: true, force: true }))

storeContract('sqlite', async () => {
  n += 1
  return new SqliteStore({ filename: join(dir, `store-${n}.db`) })
})

/** A task row as versions 1 to 5 wrote it (with its idempotency key, which 6 moved to a table of its own). */
const insertTaskRow = (
  db: BetterSqlite3.Database,
  task: Task,
  idempotencyKey: string | null = null,
): void => {
  db.prepare(
    `INSERT INTO tasks (id, tenant, owner, agent, context_id, state, version, created_at, status_at, idempotency_key, snapshot)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    task.id,
    task.tenant,
    task.owner,
    task.agent,
    task.contextId,
    task.state,
    task.version,
    task.createdAt,
    task.statusAt,
    idempotencyKey,
    JSON.stringify(task),
  )
}

describe('sqlite migrations', () => {
  it('a version 1 database: 2 moves its artifacts (metadata and file bytes), 3 its events, 7 leads each artifact to its event; the store serves them', async () => {
    const filename = join(dir, 'v1.db')
    const v1 = new Database(filename)
    v1.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)')
    v1.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (1, ?)').run(
      new Date().toISOString(),
    )
    v1.exec(SQLITE_MIGRATIONS[0]!)
    const scope = { tenant: 'acme', owner: 'alice' }
    const text = {
      id: newId(),
      taskId: 't-1',
      createdAt: '2026-11-30T10:00:00.000Z',
      type: 'text',
      text: 'hi',
    }
    const file = {
      id: newId(),
      taskId: 't-1',
      createdAt: '2026-11-30T10:00:01.000Z',
      type: 'file',
      filename: 'a.bin',
      mediaType: 'application/octet-stream',
      size: 3,
    }
    const insert = v1.prepare(
      'INSERT INTO artifacts (id, task_id, tenant, owner, meta, bytes) VALUES (?, ?, ?, ?, ?, ?)',
    )
    insert.run(text.id, 't-1', scope.tenant, scope.owner, JSON.stringify(text), null)
    insert.run(file.id, 't-1', scope.tenant, scope.owner, JSON.stringify(file), Buffer.from([1, 2, 3]))
    const events = [
      { kind: 'input', input: {}, seq: 1, at: '2026-11-30T10:00:00.000Z' },
      { kind: 'status', state: 'SUBMITTED', seq: 2, at: '2026-11-30T10:00:00.000Z' },
      { kind: 'artifact', artifact: text, seq: 3, at: '2026-11-30T10:00:00.000Z' },
      { kind: 'artifact', artifact: file, seq: 4, at: '2026-11-30T10:00:01.000Z' },
    ]
    const insertEvent = v1.prepare('INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)')
    for (const event of events) insertEvent.run('t-1', event.seq, JSON.stringify(event))
    // An artifact row with no artifact event, which no store wrote: 7 drops it.
    const orphan = { ...text, id: newId() }
    insert.run(orphan.id, 't-1', scope.tenant, scope.owner, JSON.stringify(orphan), null)
    const task = fold(header({ id: 't-1', ...scope }), events as TaskEvent[])
    insertTaskRow(v1, task)
    v1.close()

    const store = new SqliteStore({ filename })
    try {
      assert.deepEqual(await store.getArtifact(scope, text.id), { artifact: text })
      const stored = await store.getArtifact(scope, file.id)
      assert.deepEqual(stored?.artifact, file)
      assert.deepEqual([...(stored?.bytes ?? [])], [1, 2, 3])
      assert.equal(await store.getArtifact({ tenant: 'acme', owner: 'bob' }, file.id), undefined)
      assert.equal(await store.getArtifact(scope, orphan.id), undefined)
      // 3: each event row of version 1 is read as a batch of one.
      assert.deepEqual(await store.readEvents('t-1', 0), events)
      assert.deepEqual(await store.readEvents('t-1', 1), events.slice(1))
    } finally {
      await store.close()
    }
    const migrated = new Database(filename, { readonly: true })
    const versions = migrated.prepare('SELECT version FROM schema_migrations ORDER BY version').all()
    migrated.close()
    assert.deepEqual(
      versions,
      SQLITE_MIGRATIONS.map((_, i) => ({ version: i + 1 })),
    )
  })

  it('4 gives stored A2A targets artifacts: true, and leaves other targets as they were', async () => {
    const filename = join(dir, 'v3.db')
    const v3 = new Database(filename)
    migrate(v3, SQLITE_MIGRATIONS.slice(0, 3))
    const insert = v3.prepare(
      'INSERT INTO push_configs (task_id, id, tenant, owner, created_at, target) VALUES (?, ?, ?, ?, ?, ?)',
    )
    const createdAt = '2026-11-30T10:00:00.000Z'
    insert.run('t-1', 'a2a', SCOPE.tenant, SCOPE.owner, createdAt, JSON.stringify(A2A))
    insert.run('t-1', 'clawpedia', SCOPE.tenant, SCOPE.owner, createdAt, JSON.stringify(CLAWPEDIA))
    v3.close()

    const store = new SqliteStore({ filename })
    try {
      assert.deepEqual(
        (await store.listPushConfigs(SCOPE, 't-1')).map((c) => c.target),
        [{ ...A2A, artifacts: true }, CLAWPEDIA],
      )
    } finally {
      await store.close()
    }
  })
})

describe('sqlite migration 6: idempotency keys', () => {
  it('moves the keys of a version 5 database, dated by their task, matching any request until the window ends', async () => {
    const filename = join(dir, 'v5.db')
    const v5 = new Database(filename)
    migrate(v5, SQLITE_MIGRATIONS.slice(0, 5))
    const createdAt = new Date(Date.now() - 60_000).toISOString()
    const events = openingEvents({ header: header(), input: { n: 1 } }, createdAt)
    const task = fold(header({ createdAt }), events)
    insertTaskRow(v5, task, 'clawpedia:k-1')
    v5.prepare('INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)').run(
      task.id,
      2,
      JSON.stringify(events),
    )
    v5.close()

    const store = new SqliteStore({ filename })
    try {
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
    } finally {
      await store.close()
    }
    const migrated = new Database(filename, { readonly: true })
    const index = migrated.prepare("SELECT name FROM sqlite_master WHERE name = 'tasks_idempotency'").get()
    migrated.close()
    assert.equal(index, undefined, 'the unique index on tasks is gone')
  })
})

describe('sqlite compare-and-set', () => {
  it('an append that finds the task row at another version fails with VERSION_CONFLICT, writing nothing', async () => {
    const filename = join(dir, 'conflict.db')
    const store = new SqliteStore({ filename })
    try {
      const { task } = await create(store)
      // Another writer moves the version between the append's read and its update: the events insert
      // comes in between, so a trigger on it stands in for that writer.
      const other = new Database(filename)
      other.exec(`CREATE TRIGGER other_writer AFTER INSERT ON events
        BEGIN UPDATE tasks SET version = version + 100 WHERE id = NEW.task_id; END`)
      other.close()
      await assert.rejects(
        store.append({ taskId: task.id, events: [status('WORKING')] }),
        (error: unknown) => isSwitchboardError(error) && error.code === 'VERSION_CONFLICT',
      )
      assert.deepEqual(await store.getTask(SCOPE, task.id), task)
      assert.equal((await store.readEvents(task.id, 0)).length, 2)
    } finally {
      await store.close()
    }
  })
})

describe('the open-task index', () => {
  it('exists only once a server with an open-task cap prepares it, and then the count reads it', async () => {
    const filename = join(dir, 'open-index.db')
    const store = new SqliteStore({ filename })
    await store.init()
    const indexes = () => {
      const db = new Database(filename, { readonly: true })
      try {
        return db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'tasks_open'").all()
      } finally {
        db.close()
      }
    }
    try {
      assert.deepEqual(indexes(), [], 'no cap, no index: no task write pays for it')
      await store.prepareIndex('open-tasks')
      assert.equal(indexes().length, 1)
      const db = new Database(filename, { readonly: true })
      try {
        const plan = db
          .prepare(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM tasks WHERE tenant = 'a' AND owner = 'b' AND state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED')",
          )
          .all() as { detail: string }[]
        assert.match(plan.map((row) => row.detail).join('\n'), /tasks_open/)
      } finally {
        db.close()
      }
    } finally {
      await store.close()
    }
  })
})

describe('sqlite artifact rows', () => {
  it('lead to the artifact event (task and seq) and hold no copy of the artifact', async () => {
    const filename = join(dir, 'artifact-rows.db')
    const store = new SqliteStore({ filename })
    const { task } = await create(store)
    const first = textArtifact(task.id, 'one')
    const second = textArtifact(task.id, 'two')
    try {
      await store.append({
        taskId: task.id,
        events: [
          status('WORKING'),
          { kind: 'artifact', artifact: first },
          { kind: 'artifact', artifact: second },
        ],
      })
      assert.deepEqual(await store.getArtifact(SCOPE, second.id), { artifact: second })
    } finally {
      await store.close()
    }
    const db = new Database(filename, { readonly: true })
    try {
      const rows = db.prepare('SELECT * FROM artifacts ORDER BY id').all()
      assert.deepEqual(rows, [
        { id: first.id, task_id: task.id, seq: task.version + 2 },
        { id: second.id, task_id: task.id, seq: task.version + 3 },
      ])
    } finally {
      db.close()
    }
  })
})
