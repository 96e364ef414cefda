import type Database from 'better-sqlite3'
import { FINISHED_SQL } from '../task-indexes.ts'
import { prepareAll } from './db.ts'

/** The ids of the batch, as a JSON array bound once and read by each statement. */
const BATCH = 'SELECT value FROM json_each(?)'

/**
 * The batch's artifact ids, read from its artifact events: artifacts have no index by task (it
 * would cost every artifact write), while events are keyed by task.
 */
const ARTIFACT_IDS = `SELECT json_extract(e.value, '$.artifact.id') FROM events, json_each(events.body) e
  WHERE events.task_id IN (${BATCH}) AND json_extract(e.value, '$.kind') = 'artifact'`

/**
 * Retention, prepared once. A task finished before the cut-off goes with its events, artifacts,
 * file bytes, push configs and settled deliveries; one with a delivery still pending waits until
 * that delivery is delivered or dead (at most the push `maxAgeMs`). A parameter in a WHERE or LIMIT is `+?`: see prepareAll.
 */
const RETENTION_SQL = {
  expiredTasks: `SELECT id FROM tasks t WHERE ${FINISHED_SQL} AND status_at < ?
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.task_id = t.id AND d.state = 'pending')
    ORDER BY status_at LIMIT +?`,
  deleteArtifactBytes: `DELETE FROM artifact_bytes WHERE id IN (${ARTIFACT_IDS})`,
  deleteArtifacts: `DELETE FROM artifacts WHERE id IN (${ARTIFACT_IDS})`,
  deleteEvents: `DELETE FROM events WHERE task_id IN (${BATCH})`,
  deletePushConfigs: `DELETE FROM push_configs WHERE task_id IN (${BATCH})`,
  deleteDeliveries: `DELETE FROM deliveries WHERE task_id IN (${BATCH})`,
  deleteTasks: `DELETE FROM tasks WHERE id IN (${BATCH})`,
  // Oldest first, by the index on their age; a key's task is not touched.
  deleteExpiredKeys: `DELETE FROM idempotency_keys WHERE (tenant, owner, idempotency_key) IN
    (SELECT tenant, owner, idempotency_key FROM idempotency_keys WHERE created_at <= ? ORDER BY created_at LIMIT +?)`,
}

export type RetentionSql = Record<keyof typeof RETENTION_SQL, Database.Statement>

export const retentionSql = (db: Database.Database): RetentionSql => prepareAll(db, RETENTION_SQL)

/** Deletes one batch in the caller's transaction; returns how many tasks went. */
export const deleteExpiredTasks = (
  sql: RetentionSql,
  request: { finishedBefore: string; limit: number },
): number => {
  const ids = (sql.expiredTasks.all(request.finishedBefore, request.limit) as { id: string }[]).map(
    (row) => row.id,
  )
  if (ids.length === 0) return 0
  const batch = JSON.stringify(ids)
  // Artifacts first: they are found through the events.
  for (const statement of [
    sql.deleteArtifactBytes,
    sql.deleteArtifacts,
    sql.deleteEvents,
    sql.deletePushConfigs,
    sql.deleteDeliveries,
    sql.deleteTasks,
  ])
    statement.run(batch)
  return ids.length
}
