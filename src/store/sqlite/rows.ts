import type { Artifact } from '../../model/artifacts.ts'
import type { TaskEvent } from '../../model/events.ts'
import { applyEvent, changesArtifacts, foldArtifacts } from '../../model/fold.ts'
import { TERMINAL_STATES } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { DeliveryRow, EventRow, PushConfigRow } from '../rows.ts'
import type { TaskSql } from './task-sql.ts'

/** SQLite keeps JSON as text: rows read it with JSON.parse. */
export type SqliteDeliveryRow = DeliveryRow<string>
export type SqlitePushConfigRow = PushConfigRow<string>

/** SQLite keeps an events row's JSON array as text. */
export type SqliteEventRow = EventRow<string>

/**
 * A task row's stored fold (migration 8): the snapshot, holding the artifacts when `artifacts` is
 * NULL (small ones, and every row from before), else without them, and `artifacts` as they were
 * at `artifacts_version`, which may be older than the snapshot. `tail`: the events rows after the
 * older of the two versions, their JSON arrays joined by commas (NULL: none).
 */
export interface SnapshotRow {
  snapshot: string
  artifacts: string | null
  artifacts_version: number | null
  tail: string | null
}

// One comparison a state: an IN list of constants builds a temporary index at every run.
const TERMINAL = [...TERMINAL_STATES].map((state) => `state = '${state}'`).join(' OR ')

/**
 * The columns of a SnapshotRow, for the statements that read one from `tasks`. The tail comes in
 * the same statement: a read is one statement whether or not events follow the snapshot. A
 * terminal snapshot with its artifacts at its version has none (nothing follows a terminal
 * status), and the events are not looked at. The rows come in no set order (an ORDER BY in the
 * aggregate sorts in a temporary B-tree): foldRow orders them.
 */
export const SNAPSHOT_COLUMNS = `snapshot, artifacts, artifacts_version,
  CASE WHEN (${TERMINAL}) AND coalesce(artifacts_version, version) = version THEN NULL ELSE
    (SELECT group_concat(body, ',') FROM events
      WHERE events.task_id = tasks.id AND events.seq > coalesce(tasks.artifacts_version, tasks.version))
  END AS tail`

/** The fold of a row, and the seq of the first event after its stored artifacts that changed them. */
export interface FoldedRow {
  task: Task
  artifactsChangedAt: number | undefined
  /** With `keepStored`, when the snapshot held the artifacts: them as stored. */
  storedArtifacts: Artifact[] | undefined
}

/**
 * The task now: its snapshot; its stored artifacts with the artifact and chunk events folded in
 * up to the snapshot's version; then every event after it (the quiet ones appended since).
 */
export const foldRow = (row: SnapshotRow, options?: { keepStored: boolean }): FoldedRow => {
  const task = JSON.parse(row.snapshot) as Task
  let artifactsChangedAt: number | undefined
  if (row.artifacts !== null) task.artifacts = row.artifacts === '[]' ? [] : JSON.parse(row.artifacts)
  // A chunk replaces its artifact in the list rather than change it: a copy of the list keeps them.
  const storedArtifacts = options?.keepStored && row.artifacts === null ? task.artifacts.slice() : undefined
  if (row.tail === null) return { task, artifactsChangedAt, storedArtifacts }
  const version = task.version
  const from = row.artifacts_version ?? version
  // Each events row is a JSON array of events; a row ending after `from` may begin before it.
  const rows = JSON.parse(`[${row.tail}]`) as TaskEvent[][]
  if (rows.length > 1) rows.sort((a, b) => a[0]!.seq - b[0]!.seq)
  for (const events of rows) {
    for (const event of events) {
      if (event.seq <= from) continue
      if (event.seq > version) applyEvent(task, event)
      else foldArtifacts(task, event)
      if (artifactsChangedAt === undefined && changesArtifacts(event)) artifactsChangedAt = event.seq
    }
  }
  return { task, artifactsChangedAt, storedArtifacts }
}

export const currentTask = (row: SnapshotRow): Task => foldRow(row).task

export const readTask = (sql: TaskSql, taskId: string): Task | undefined => {
  const row = sql.snapshotById.get(taskId) as SnapshotRow | undefined
  return row ? currentTask(row) : undefined
}
