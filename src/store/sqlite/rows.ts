import { applyEvent } from '../../model/fold.ts'
import { isTerminal } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import { type DeliveryRow, type EventRow, eventsOfRows, type PushConfigRow } from '../rows.ts'
import type { TaskSql } from './task-sql.ts'

/** SQLite keeps JSON as text: rows read it with JSON.parse. */
export type SqliteDeliveryRow = DeliveryRow<string>
export type SqlitePushConfigRow = PushConfigRow<string>

/** SQLite keeps an events row's JSON array as text. */
export type SqliteEventRow = EventRow<string>

/** The task now: its snapshot, with the quiet events appended since folded in. */
export const currentTask = (sql: TaskSql, snapshot: string): Task => {
  const task = JSON.parse(snapshot) as Task
  // A terminal status is always folded into the snapshot, and nothing follows it.
  if (isTerminal(task.state)) return task
  const rows = sql.eventsAfter.all(task.id, task.version) as SqliteEventRow[]
  for (const event of eventsOfRows(rows, JSON.parse, task.version)) applyEvent(task, event)
  return task
}

export const readTask = (sql: TaskSql, taskId: string): Task | undefined => {
  const row = sql.snapshotById.get(taskId) as { snapshot: string } | undefined
  return row ? currentTask(sql, row.snapshot) : undefined
}
