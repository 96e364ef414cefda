import type { TaskEvent } from '../../model/events.ts'
import { applyEvent } from '../../model/fold.ts'
import { isTerminal } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { DeliveryRow, PushConfigRow } from '../rows.ts'
import type { TaskSql } from './task-sql.ts'

/** SQLite keeps JSON as text: rows read it with JSON.parse. */
export type SqliteDeliveryRow = DeliveryRow<string>
export type SqlitePushConfigRow = PushConfigRow<string>

export interface EventRow {
  /** A JSON array of events, ascending and contiguous. */
  body: string
}

/** The events after `afterSeq` in rows of batches, in order, at most `limit`. */
export const eventsOfRows = (
  rows: readonly EventRow[],
  afterSeq: number,
  limit = Number.POSITIVE_INFINITY,
): TaskEvent[] => {
  const events: TaskEvent[] = []
  for (const row of rows) {
    for (const event of JSON.parse(row.body) as TaskEvent[]) {
      if (event.seq <= afterSeq) continue
      events.push(event)
      if (events.length >= limit) return events
    }
  }
  return events
}

/** The task now: its snapshot, with the quiet events appended since folded in. */
export const currentTask = (sql: TaskSql, snapshot: string): Task => {
  const task = JSON.parse(snapshot) as Task
  // A terminal status is always folded into the snapshot, and nothing follows it.
  if (isTerminal(task.state)) return task
  const rows = sql.eventsAfter.all(task.id, task.version) as EventRow[]
  for (const event of eventsOfRows(rows, task.version)) applyEvent(task, event)
  return task
}

export const readTask = (sql: TaskSql, taskId: string): Task | undefined => {
  const row = sql.snapshotById.get(taskId) as { snapshot: string } | undefined
  return row ? currentTask(sql, row.snapshot) : undefined
}
