import { OPEN_SQL } from '../task-indexes.ts'
import { splitDocuments, statement } from './db.ts'
import { EVENTS_CHANNEL, WORK_CHANNEL } from './notify.ts'

/** The rows one commit inserts besides its events, as parallel arrays for unnest(). */
const INSERT_DELIVERIES = (s: string) => `INSERT INTO ${s}.deliveries
      (id, task_id, seq, config_id, target, event, task, state, attempts, created_at, next_attempt_at)
    SELECT d.id, :task_id, d.seq, d.config_id, d.target, d.event, d.task, 'pending', 0, now(), now()
    FROM unnest(:delivery_ids::text[], :delivery_seqs::int[], :delivery_configs::text[],
                ${splitDocuments('delivery_targets')}, ${splitDocuments('delivery_events')}, ${splitDocuments('delivery_tasks')})
      AS d(id, seq, config_id, target, event, task)`

/** The push configs one commit adds, as parallel arrays for unnest(). */
const INSERT_CONFIGS = (
  s: string,
) => `INSERT INTO ${s}.push_configs (task_id, id, tenant, owner, created_at, target)
    SELECT :task_id, c.id, :tenant, :owner, :config_created_at, c.target
    FROM unnest(:config_ids::text[], ${splitDocuments('config_targets')}) AS c(id, target)`

/**
 * The events of one write as one row, keyed by the last one's seq, its body their JSON array (as
 * in SQLite): a lifecycle's events cost a row per write, not one per event. None, no row.
 */
const INSERT_EVENTS = (s: string) => `INSERT INTO ${s}.events (task_id, seq, body)
    SELECT :task_id, :last_seq::int, :events::json WHERE :last_seq::int IS NOT NULL`

/** A task row as an append needs it: the snapshot, who may see it, its lease and its push configs. */
const TASK_ROW = (s: string) => `SELECT t.snapshot, t.tenant, t.owner, t.lease_owner, t.version,
       (SELECT coalesce(json_agg(json_build_object('id', c.id, 'target', c.target) ORDER BY c.created_at, c.id), '[]')
        FROM ${s}.push_configs c WHERE c.task_id = t.id) AS configs
     FROM ${s}.tasks t WHERE t.id = :task_id`

/** Task creation, appends and reads. `s` is the quoted schema. */
export const taskSql = (s: string) => ({
  insertTask: statement(
    'sb_insert_task',
    `INSERT INTO ${s}.tasks (id, tenant, owner, agent, context_id, state, version, created_at, status_at,
       run_pending, lease_owner, lease_expires_at, snapshot)
     VALUES (:id, :tenant, :owner, :agent, :context_id, :state, :version, :created_at, :status_at,
       true, :lease_owner::text, now() + :lease_ms::float8 * interval '1 millisecond', :snapshot)`,
  ),

  /**
   * The task row of a creation with an idempotency key, inserted only when the key was claimed:
   * the key's primary key decides a race between two creations with the same key (the second
   * waits for the first to commit and claims nothing). A key past the window is taken over here,
   * compared on the locked row; one whose task is gone is not (a subquery would read the
   * statement's snapshot, older than a racing winner's task): see dropDanglingKey.
   */
  insertKeyedTask: statement(
    'sb_insert_keyed_task',
    `WITH claimed AS (
       INSERT INTO ${s}.idempotency_keys AS k (tenant, owner, idempotency_key, fingerprint, task_id, created_at)
       VALUES (:tenant, :owner, :idempotency_key, :fingerprint, :id, now())
       ON CONFLICT (tenant, owner, idempotency_key) DO UPDATE
         SET fingerprint = excluded.fingerprint, task_id = excluded.task_id, created_at = excluded.created_at
         WHERE k.created_at <= now() - :window_ms::float8 * interval '1 millisecond'
       RETURNING 1)
     INSERT INTO ${s}.tasks (id, tenant, owner, agent, context_id, state, version, created_at, status_at,
       run_pending, lease_owner, lease_expires_at, snapshot)
     SELECT :id::text, :tenant::text, :owner::text, :agent::text, :context_id::text, :state::text, :version::int,
       :created_at::timestamptz, :status_at::timestamptz,
       true, :lease_owner::text, now() + :lease_ms::float8 * interval '1 millisecond', :snapshot::json
     WHERE EXISTS (SELECT 1 FROM claimed)
     RETURNING id`,
  ),

  /** The live key a creation could not claim, with its task (null when that task is gone). */
  keyedTask: statement(
    'sb_keyed_task',
    `SELECT k.fingerprint, k.task_id, t.snapshot FROM ${s}.idempotency_keys k
     LEFT JOIN ${s}.tasks t ON t.id = k.task_id
     WHERE k.tenant = :tenant AND k.owner = :owner AND k.idempotency_key = :idempotency_key`,
  ),

  /** A key whose task retention deleted: it dedupes nothing, so the creation may take it. */
  dropDanglingKey: statement(
    'sb_drop_dangling_key',
    `DELETE FROM ${s}.idempotency_keys
     WHERE tenant = :tenant AND owner = :owner AND idempotency_key = :idempotency_key AND task_id = :task_id`,
  ),

  /**
   * The rest of a creation, in one round trip: opening events, push configs, the outbox rows of
   * the opening status, and the notes (sent by PostgreSQL at commit). A task created unleased is
   * work for any replica, so admission everywhere is woken.
   */
  openTask: statement(
    'sb_open_task',
    `WITH events AS (${INSERT_EVENTS(s)}),
     configs AS (${INSERT_CONFIGS(s)}),
     deliveries AS (${INSERT_DELIVERIES(s)})
     SELECT pg_notify('${EVENTS_CHANNEL}', :event_note),
            CASE WHEN :runnable::boolean THEN pg_notify('${WORK_CHANNEL}', :work_note) END`,
  ),

  /**
   * The task row, locked until the append commits: racing appends (cancel against complete, two
   * replicas) queue here and each folds onto the state the previous one left. NO KEY UPDATE is
   * enough (keys never change) and lets a push config's FOR KEY SHARE of the task through.
   */
  taskForUpdate: statement('sb_task_for_update', `${TASK_ROW(s)} FOR NO KEY UPDATE OF t`),

  /** The same row unlocked: what group commit folds an append onto, compare-and-set on its version. */
  taskRow: statement('sb_task_row', TASK_ROW(s)),

  /**
   * Everything an append writes, in one round trip: events, artifacts, push configs that come with
   * it, outbox rows, then the task row with a compare-and-set on its version (redundant under the
   * row lock, and cheap), then the notes. `run_pending` is decided by the caller (runPendingAfter;
   * null leaves it); a run's last write (`release`) frees its lease as releaseLease does.
   */
  commitAppend: statement(
    'sb_commit_append',
    `WITH events AS (${INSERT_EVENTS(s)}),
     artifacts AS (
       INSERT INTO ${s}.artifacts (id, task_id, seq, bytes)
       SELECT a.id, :task_id, a.seq, a.bytes
       FROM unnest(:artifact_ids::text[], :artifact_seqs::int[], :artifact_bytes::bytea[]) AS a(id, seq, bytes)
     ),
     configs AS (${INSERT_CONFIGS(s)}),
     deliveries AS (${INSERT_DELIVERIES(s)}),
     updated AS (
       UPDATE ${s}.tasks SET state = :state, version = :version, status_at = :status_at, snapshot = :snapshot,
         run_pending = coalesce(:run_pending::boolean, run_pending),
         lease_owner = CASE WHEN :release::boolean THEN NULL ELSE lease_owner END,
         lease_expires_at = CASE WHEN :release::boolean THEN NULL ELSE lease_expires_at END
       WHERE id = :task_id AND version = :expected_version
       RETURNING run_pending
     )
     SELECT pg_notify('${EVENTS_CHANNEL}', :event_note),
            CASE WHEN :request_run::boolean AND run_pending THEN pg_notify('${WORK_CHANNEL}', :work_note) END
     FROM updated`,
  ),

  taskSnapshot: statement(
    'sb_task_snapshot',
    // owner NULL: a tenant-wide scope (see visible in store/rows.ts). The row is found by its key,
    // then its scope checked: as one WHERE, a plan made on near-empty tables may go through a
    // tenant index instead and read every task of the tenant.
    `WITH keyed AS MATERIALIZED (SELECT snapshot, tenant, owner FROM ${s}.tasks WHERE id = :task_id)
     SELECT snapshot FROM keyed WHERE tenant = :tenant AND owner = coalesce(:owner::text, owner)`,
  ),

  // The predicate is the tasks_open index's, word for word, so the count reads only that index
  // (made on demand by prepareIndex: see the store contract).
  countOpen: statement(
    'sb_count_open',
    `SELECT count(*)::int AS n FROM ${s}.tasks WHERE tenant = :tenant AND owner = :owner
       AND ${OPEN_SQL}`,
  ),

  /** Rows of events ending after the cursor: `limit` rows hold at least `limit` events, if there are. */
  events: statement(
    'sb_events',
    `SELECT body FROM ${s}.events WHERE task_id = :task_id AND seq > :after_seq ORDER BY seq LIMIT :limit`,
  ),

  /** The versions of some tasks: where a bus that missed notes while reconnecting catches up from. */
  versions: statement('sb_versions', `SELECT id, version FROM ${s}.tasks WHERE id = ANY(:ids::text[])`),

  /** An artifact row leads to its artifact event: the events row holding seq is the first keyed at or after it. */
  artifact: statement(
    'sb_artifact',
    `SELECT a.seq, a.bytes, t.tenant, t.owner,
       (SELECT body FROM ${s}.events e WHERE e.task_id = a.task_id AND e.seq >= a.seq ORDER BY e.seq LIMIT 1) AS body
     FROM ${s}.artifacts a JOIN ${s}.tasks t ON t.id = a.task_id WHERE a.id = :id`,
  ),
})

export type TaskSql = ReturnType<typeof taskSql>
