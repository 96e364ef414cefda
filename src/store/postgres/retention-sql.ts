import { FINISHED_SQL } from '../task-indexes.ts'
import { statement } from './db.ts'

/**
 * Retention. `s` is the quoted schema. One statement deletes a batch: a task finished before the
 * cut-off goes with its events, artifacts (their bytes are in the row), push configs and settled
 * deliveries; one with a delivery still pending waits until that delivery is delivered or dead.
 * SKIP LOCKED gives replicas sweeping at once disjoint batches, and passes over a task whose push
 * config is being written (it holds the task FOR KEY SHARE). Artifacts have no index by task (it
 * would cost every artifact write): their ids are read from the artifact events.
 */
export const retentionSql = (s: string) => ({
  deleteExpiredTasks: statement(
    'sb_delete_expired_tasks',
    `WITH doomed AS (
       SELECT id FROM ${s}.tasks t WHERE ${FINISHED_SQL} AND status_at < :finished_before::timestamptz
         AND NOT EXISTS (SELECT 1 FROM ${s}.deliveries d WHERE d.task_id = t.id AND d.state = 'pending')
       ORDER BY status_at LIMIT :limit FOR UPDATE SKIP LOCKED),
     artifacts AS (DELETE FROM ${s}.artifacts WHERE id IN (
       SELECT e.value->'artifact'->>'id' FROM ${s}.events, json_array_elements(body) AS e(value)
       WHERE task_id IN (SELECT id FROM doomed) AND e.value->>'kind' = 'artifact')),
     events AS (DELETE FROM ${s}.events WHERE task_id IN (SELECT id FROM doomed)),
     configs AS (DELETE FROM ${s}.push_configs WHERE task_id IN (SELECT id FROM doomed)),
     deliveries AS (DELETE FROM ${s}.deliveries WHERE task_id IN (SELECT id FROM doomed)),
     tasks AS (DELETE FROM ${s}.tasks WHERE id IN (SELECT id FROM doomed) RETURNING id)
     SELECT count(*)::int AS n FROM tasks`,
  ),

  /** A batch of keys past the window, oldest first; SKIP LOCKED passes over a key being taken over. */
  deleteExpiredKeys: statement(
    'sb_delete_expired_keys',
    `WITH doomed AS (
       SELECT tenant, owner, idempotency_key FROM ${s}.idempotency_keys
       WHERE created_at <= now() - :older_than_ms::float8 * interval '1 millisecond'
       ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED),
     gone AS (DELETE FROM ${s}.idempotency_keys k USING doomed d
       WHERE k.tenant = d.tenant AND k.owner = d.owner AND k.idempotency_key = d.idempotency_key RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
  ),
})

export type RetentionSql = ReturnType<typeof retentionSql>
