import { statement } from './db.ts'

const DELIVERY_COLUMNS = `id, task_id, seq, config_id, target, event, task, state, attempts, created_at,
  next_attempt_at, last_error, delivered_at`

/** Push configs and the push outbox. `s` is the quoted schema. */
export const pushSql = (s: string) => ({
  /**
   * Creates or replaces a config, only on a task visible in the scope (no row: TASK_NOT_FOUND). The
   * task is found by its key, then its scope checked, as in taskSnapshot. FOR KEY SHARE keeps the
   * task from being deleted (retention) until the config commits, and one being deleted is waited
   * for, then not found; appends, which take NO KEY UPDATE, go on meanwhile.
   */
  putPushConfig: statement(
    'sb_put_push_config',
    `WITH keyed AS MATERIALIZED (SELECT id, tenant, owner FROM ${s}.tasks WHERE id = :task_id FOR KEY SHARE)
     INSERT INTO ${s}.push_configs (task_id, id, tenant, owner, created_at, target)
     SELECT t.id, :id, t.tenant, t.owner, :created_at::timestamptz, :target::json FROM keyed t
     WHERE t.tenant = :tenant AND t.owner = coalesce(:owner::text, t.owner)
     ON CONFLICT (task_id, id) DO UPDATE SET created_at = excluded.created_at, target = excluded.target
     RETURNING id`,
  ),

  pushConfig: statement(
    'sb_push_config',
    `SELECT id, created_at, target FROM ${s}.push_configs
     WHERE task_id = :task_id AND id = :id AND tenant = :tenant AND owner = coalesce(:owner::text, owner)`,
  ),

  pushConfigs: statement(
    'sb_push_configs',
    `SELECT id, created_at, target FROM ${s}.push_configs
     WHERE task_id = :task_id AND tenant = :tenant AND owner = coalesce(:owner::text, owner) ORDER BY created_at, id`,
  ),

  /** Deletes a config and the deliveries still pending for it; says whether the config existed. */
  deletePushConfig: statement(
    'sb_delete_push_config',
    `WITH gone AS (
       DELETE FROM ${s}.push_configs
       WHERE task_id = :task_id AND id = :id AND tenant = :tenant AND owner = coalesce(:owner::text, owner)
       RETURNING task_id, id
     ),
     dropped AS (
       DELETE FROM ${s}.deliveries d USING gone
       WHERE d.task_id = gone.task_id AND d.config_id = gone.id AND d.state = 'pending'
     )
     SELECT count(*)::int AS deleted FROM gone`,
  ),

  /**
   * Per-endpoint order across concurrent claimers: a row is eligible only when no earlier row of
   * its (task, config) is pending. A claimed row stays 'pending' until settled, so while anyone
   * holds seq N, seq N+1 is invisible to every claimer; once N is settled, N+1 is the earliest.
   * Each eligible row is the single head of its (task, config), so SKIP LOCKED on it is a lock per
   * endpoint and task: two claimers never take the same head, and a head claimed after this
   * statement's snapshot is re-checked under the lock and dropped.
   */
  claimDeliveries: statement(
    'sb_claim_deliveries',
    `WITH picked AS (
       SELECT d.id FROM ${s}.deliveries d
       WHERE d.state = 'pending' AND d.next_attempt_at <= now()
         AND (d.claim_owner IS NULL OR d.claim_expires_at < now())
         AND NOT EXISTS (
           SELECT 1 FROM ${s}.deliveries e
           WHERE e.task_id = d.task_id AND e.config_id = d.config_id AND e.state = 'pending' AND e.seq < d.seq
         )
       ORDER BY d.next_attempt_at, d.task_id, d.seq
       LIMIT :limit
       FOR UPDATE OF d SKIP LOCKED
     ),
     claimed AS (
       UPDATE ${s}.deliveries d
       SET claim_owner = :owner, claim_expires_at = now() + :ttl_ms::float8 * interval '1 millisecond'
       FROM picked WHERE d.id = picked.id
       RETURNING d.*
     )
     SELECT ${DELIVERY_COLUMNS} FROM claimed ORDER BY next_attempt_at, task_id, seq`,
  ),

  /** Only the claim holder settles; a late answer from a runner whose claim was taken is ignored. */
  settleDelivery: statement(
    'sb_settle_delivery',
    `UPDATE ${s}.deliveries SET state = :state, attempts = attempts + 1, last_error = :error::text,
       next_attempt_at = coalesce(:retry_at::timestamptz, now()),
       delivered_at = CASE WHEN :state = 'delivered' THEN now() END,
       claim_owner = NULL, claim_expires_at = NULL
     WHERE id = :id AND claim_owner = :owner`,
  ),

  listDeliveries: statement(
    'sb_list_deliveries',
    `SELECT ${DELIVERY_COLUMNS} FROM ${s}.deliveries
     WHERE (:state::text IS NULL OR state = :state::text) AND (:task_id::text IS NULL OR task_id = :task_id::text)
     ORDER BY created_at DESC, seq DESC LIMIT :limit`,
  ),

  delivery: statement('sb_delivery', `SELECT ${DELIVERY_COLUMNS} FROM ${s}.deliveries WHERE id = :id`),

  retryDelivery: statement(
    'sb_retry_delivery',
    `UPDATE ${s}.deliveries SET state = 'pending', attempts = 0, next_attempt_at = now(), created_at = now(), last_error = NULL,
       claim_owner = NULL, claim_expires_at = NULL
     WHERE id = :id AND state = 'dead'
     RETURNING ${DELIVERY_COLUMNS}`,
  ),

  countDeliveries: statement(
    'sb_count_deliveries',
    `SELECT state, count(*)::int AS n FROM ${s}.deliveries GROUP BY state`,
  ),
})

export type PushSql = ReturnType<typeof pushSql>
