import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type { TaskEvent } from '../../src/model/events.ts'
import { fold, headerOf } from '../../src/model/fold.ts'
import { newId } from '../../src/model/ids.ts'
import { SqliteDatabase as Database } from '../../src/store/sqlite/driver.ts'
import { migrate } from '../../src/store/sqlite/migrate.ts'
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import {
  assertSameTask,
  completed,
  create,
  header,
  SCOPE,
  status,
  textArtifact,
} from './contract/fixtures.ts'

const dir = mkdtempSync(join(tmpdir(), 'switchboard-sqlite-snapshot-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** The task row's stored fold, as the store left it. */
interface StoredRow {
  version: number
  snapshot: string
  artifacts: string | null
  artifacts_version: number | null
}

const storedRow = (filename: string, taskId: string): StoredRow => {
  const db = new Database(filename, { readonly: true })
  try {
    return db
      .prepare('SELECT version, snapshot, artifacts, artifacts_version FROM tasks WHERE id = ?')
      .get(taskId) as StoredRow
  } finally {
    db.close()
  }
}

/** Text enough that two of them are past the 2 KB under which artifacts stay in the snapshot. */
const long = (label: string): string => `${label} ${'x'.repeat(1200)}`

const agentSays = (text: string) => ({
  messageId: newId(),
  role: 'agent' as const,
  parts: [{ kind: 'text' as const, text }],
})

describe('the SQLite task row (migration 8)', () => {
  it("holds no copy of a run's batch of artifacts past 2 KB: they are in its events row, and every read folds them", async () => {
    const filename = join(dir, 'batch.db')
    const store = new SqliteStore({ filename })
    try {
      const { task } = await create(store)
      const first = textArtifact(task.id, long('one'))
      const second = textArtifact(task.id, long('two'))
      const { task: done } = await store.append({
        taskId: task.id,
        events: [
          status('WORKING'),
          { kind: 'artifact', artifact: first },
          { kind: 'artifact', artifact: second },
          completed,
        ],
      })
      const row = storedRow(filename, task.id)
      assert.equal(row.version, 6)
      assert.deepEqual(JSON.parse(row.snapshot).artifacts, [])
      assert.equal(row.artifacts, '[]')
      assert.equal(
        row.artifacts_version,
        3,
        'the stored artifacts (none) are the task’s until the first one, seq 4',
      )
      assert.deepEqual(done.artifacts, [first, second])
      assertSameTask(await store.getTask(SCOPE, task.id), done)
      assertSameTask((await store.listTasks(SCOPE, { pageSize: 10 })).tasks[0], done)
    } finally {
      await store.close()
    }
  })

  it('writes the artifacts out again once they lag the snapshot by more than 64 events, never later', async () => {
    const filename = join(dir, 'lag.db')
    const store = new SqliteStore({ filename })
    try {
      const { task } = await create(store)
      let rewrites = 0
      let lagging = 0
      let previous = storedRow(filename, task.id).artifacts
      for (let i = 0; i < 120; i++) {
        // Every append folds (a WORKING status that says something), each brings an artifact.
        await store.append({
          taskId: task.id,
          events: [
            { kind: 'artifact', artifact: textArtifact(task.id, long(`a${i}`)) },
            status('WORKING', { message: agentSays(`step ${i}`) }),
          ],
        })
        const row = storedRow(filename, task.id)
        const lag = row.version - (row.artifacts_version ?? row.version)
        assert.ok(lag <= 64, `lag ${lag}`)
        if (row.artifacts !== previous) rewrites += 1
        if (lag > 0) lagging += 1
        previous = row.artifacts
        const log = (await store.readEvents(task.id, 0, 10_000)) as TaskEvent[]
        assertSameTask(await store.getTask(SCOPE, task.id), fold(headerOf(task), log))
      }
      // 240 events, two an append: the first keeps its artifact in the snapshot (under 2 KB), the
      // second moves them apart, then a rewrite about every 32 appends, the rows in between lagging.
      assert.ok(rewrites >= 3 && rewrites <= 4, `${rewrites} rewrites`)
      assert.ok(lagging >= 110, `${lagging} appends left the artifacts behind`)
      assert.equal(JSON.parse(storedRow(filename, task.id).artifacts!).length > 60, true)
    } finally {
      await store.close()
    }
  })

  it('keeps artifacts under 2 KB in the snapshot at every fold, as before: a read needs no events row', async () => {
    const filename = join(dir, 'small.db')
    const store = new SqliteStore({ filename })
    try {
      const { task } = await create(store)
      const artifact = textArtifact(task.id, 'small')
      const { task: done } = await store.append({
        taskId: task.id,
        events: [status('WORKING'), { kind: 'artifact', artifact }, completed],
      })
      const row = storedRow(filename, task.id)
      assert.deepEqual(JSON.parse(row.snapshot).artifacts, [artifact])
      assert.equal(row.artifacts, null)
      assert.equal(row.artifacts_version, null)
      assertSameTask(await store.getTask(SCOPE, task.id), done)
    } finally {
      await store.close()
    }
  })

  it('reads a row from before it (the snapshot holds the artifacts), and a fold past 2 KB moves them apart', async () => {
    const filename = join(dir, 'v7.db')
    const v7 = new Database(filename)
    migrate(v7, SQLITE_MIGRATIONS.slice(0, 7))
    const at = '2026-12-01T10:00:00.000Z'
    const owner = header()
    const artifact = textArtifact(owner.id, long('kept'))
    const events = [
      { kind: 'input', input: { n: 1 }, seq: 1, at },
      { kind: 'status', state: 'SUBMITTED', seq: 2, at },
      { kind: 'status', state: 'WORKING', seq: 3, at },
      { kind: 'artifact', artifact, seq: 4, at },
      { kind: 'status', state: 'WORKING', message: agentSays('half way'), seq: 5, at },
    ] as TaskEvent[]
    const before = fold(owner, events)
    v7.prepare(
      `INSERT INTO tasks (id, tenant, owner, agent, context_id, state, version, created_at, status_at, snapshot)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      before.id,
      before.tenant,
      before.owner,
      before.agent,
      before.contextId,
      before.state,
      before.version,
      before.createdAt,
      before.statusAt,
      JSON.stringify(before),
    )
    const insertEvents = v7.prepare('INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)')
    insertEvents.run(before.id, 2, JSON.stringify(events.slice(0, 2)))
    insertEvents.run(before.id, 5, JSON.stringify(events.slice(2)))
    v7.prepare('INSERT INTO artifacts (id, task_id, seq) VALUES (?, ?, ?)').run(artifact.id, before.id, 4)
    v7.close()

    const store = new SqliteStore({ filename })
    try {
      assertSameTask(await store.getTask(SCOPE, before.id), before)
      assert.deepEqual(storedRow(filename, before.id).artifacts, null, 'migrating rewrote no task row')
      const later = textArtifact(before.id, long('later'))
      const { task: done } = await store.append({
        taskId: before.id,
        events: [{ kind: 'artifact', artifact: later }, completed],
      })
      const row = storedRow(filename, before.id)
      assert.deepEqual(JSON.parse(row.artifacts!), [artifact], 'the artifacts as the old snapshot held them')
      assert.equal(row.artifacts_version, 5)
      assert.deepEqual(JSON.parse(row.snapshot).artifacts, [])
      assert.deepEqual(done.artifacts, [artifact, later])
      assertSameTask(await store.getTask(SCOPE, before.id), done)
      assert.deepEqual(await store.getArtifact(SCOPE, artifact.id), { artifact })
    } finally {
      await store.close()
    }
  })
})
