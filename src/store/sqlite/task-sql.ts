import type Database from 'better-sqlite3'
import { OPEN_SQL } from '../task-indexes.ts'
import { prepareAll } from './db.ts'
import { SNAPSHOT_COLUMNS } from './rows.ts'

/** An INSERT of `count` artifact rows. */
const artifactRows = (count: number): string =>
  `INSERT INTO artifacts (id, task_id, seq) VALUES ${Array(count).fill('(?, ?, ?)').join(', ')}`

/** Task creation, appends and reads, prepared once. A parameter in a WHERE or LIMIT is `+?`: see prepareAll. */
const TASK_SQL = {
  ping: 'SELECT 1',
  idempotencyKey: `SELECT fingerprint, task_id, created_at FROM idempotency_keys
    WHERE tenant = +? AND owner = +? AND idempotency_key = +?`,
  // A key that expired, or whose task is gone, is taken over by the new task.
  putIdempotencyKey: `INSERT INTO idempotency_keys (tenant, owner, idempotency_key, fingerprint, task_id, created_at)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant, owner, idempotency_key) DO UPDATE SET
      fingerprint = excluded.fingerprint, task_id = excluded.task_id, created_at = excluded.created_at`,
  // Positional parameters throughout: binding by name costs a third more on these hot statements.
  insertTask: `INSERT INTO tasks
    (id, tenant, owner, agent, context_id, state, version, created_at, status_at, run_pending, lease_owner, lease_expires_at, snapshot)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
  // The snapshot and the artifacts are last in the row and not read: their overflow pages stay on disk.
  taskHead: 'SELECT state, tenant, owner, lease_owner, version FROM tasks WHERE id = +?',
  taskHeadAndSnapshot: `SELECT state, tenant, owner, lease_owner, version, ${SNAPSHOT_COLUMNS} FROM tasks WHERE id = +?`,
  snapshotById: `SELECT ${SNAPSHOT_COLUMNS} FROM tasks WHERE id = +?`,
  lastSeq: 'SELECT max(seq) AS seq FROM events WHERE task_id = +?',
  // owner NULL: a tenant-wide scope (see visible in store/rows.ts).
  taskSnapshot: `SELECT ${SNAPSHOT_COLUMNS} FROM tasks WHERE id = +? AND tenant = +? AND owner = coalesce(?, owner)`,
  // The predicate is the tasks_open index's, word for word, so the count reads only that index
  // (made on demand by prepareIndex: see the store contract).
  countOpen: `SELECT count(*) AS n FROM tasks
    WHERE tenant = +? AND owner = +? AND ${OPEN_SQL}`,
  // With a release the run's lease goes too, leaving the task as releaseLease would.
  // better-sqlite3 binds no numbered parameter twice: the run_pending and lease columns are computed
  // by the caller (see appendFolded), and the version is compared as the compare-and-set. The
  // artifacts column is set (to a value or NULL) when the flag before it is 1, else kept.
  updateTask: `UPDATE tasks SET state = ?, version = ?, status_at = ?, snapshot = ?,
    artifacts = CASE ? WHEN 1 THEN ? ELSE artifacts END, artifacts_version = ?,
    run_pending = coalesce(?, run_pending),
    lease_owner = CASE WHEN ? = 1 THEN NULL ELSE lease_owner END,
    lease_expires_at = CASE WHEN ? = 1 THEN NULL ELSE lease_expires_at END
    WHERE id = +? AND version = +?`,
  // `seq` is the last event's of the row (see insertEvents). A snapshot's reads take the rows
  // after it in the same statement (SNAPSHOT_COLUMNS in rows.ts).
  insertEvent: 'INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)',
  // Every row holds at least one event: n rows hold at least n events, if there are.
  eventsPage: 'SELECT body FROM events WHERE task_id = +? AND seq > ? ORDER BY seq LIMIT +?',
  // An artifact row leads to its artifact event: its task and the event's seq (migration 7).
  // A batch's artifact rows go in by powers of two (insertArtifacts in task-writes.ts): ten rows
  // cost two statements, not ten.
  insertArtifacts1: artifactRows(1),
  insertArtifacts2: artifactRows(2),
  insertArtifacts4: artifactRows(4),
  insertArtifacts8: artifactRows(8),
  insertArtifacts16: artifactRows(16),
  insertArtifactBytes: 'INSERT INTO artifact_bytes (id, bytes) VALUES (?, ?)',
  // The events row holding seq is the first keyed at or after it (see insertEvents).
  artifact: `SELECT a.seq, t.tenant, t.owner, b.bytes,
      (SELECT body FROM events e WHERE e.task_id = a.task_id AND e.seq >= a.seq ORDER BY e.seq LIMIT 1) AS body
    FROM artifacts a JOIN tasks t ON t.id = a.task_id LEFT JOIN artifact_bytes b ON b.id = a.id
    WHERE a.id = +?`,
}

export type TaskSql = Record<keyof typeof TASK_SQL, Database.Statement>

export const taskSql = (db: Database.Database): TaskSql => prepareAll(db, TASK_SQL)
