import { type Statement, splitDocuments, statement } from './db.ts'
import { EVENTS_CHANNEL, NOTES_PER_NOTIFY, WORK_CHANNEL } from './notify.ts'

/**
 * What a batch holds. Its statement has a part only for what it holds: PostgreSQL starts every
 * part of a statement at each run (each INSERT opens its table and every index of it), whether
 * its arrays are empty or not, and that start was an eighth of the database's CPU per send.
 */
export interface BatchShape {
  creates: boolean
  /** Some creation carries an idempotency key. */
  keys: boolean
  appends: boolean
  events: boolean
  artifacts: boolean
  configs: boolean
  deliveries: boolean
}

const PARTS = ['creates', 'keys', 'appends', 'events', 'artifacts', 'configs', 'deliveries'] as const

/**
 * One group commit in one statement, so one round trip and one WAL flush for every write of the
 * batch. Each write is rows of parallel arrays (unnest); writes are independent of one another:
 * - a creation inserts its task row; with an idempotency key, only when the key was claimed;
 * - an append is a compare-and-set of the task row on the version it was folded from (and on the
 *   lease its runner holds, and on the push configs it computed the outbox for); a row locked by
 *   another writer is waited for and re-checked (READ COMMITTED), so the fold is always of the
 *   row's current state;
 * - events, artifacts, push configs and outbox rows go in only for the tasks written.
 * A write that did not land (a held key, a stale version) is redone by its caller on the locked
 * path. Notes go out once per batch (NOTES_PER_NOTIFY tasks a notification), at commit.
 */
const commitBatchSql = (s: string, shape: BatchShape): string => {
  const parts: string[] = []
  if (shape.keys)
    parts.push(`claimed AS (
       INSERT INTO ${s}.idempotency_keys AS k (tenant, owner, idempotency_key, fingerprint, task_id, created_at)
       SELECT c.tenant, c.owner, c.key, c.fingerprint, c.id, now()
       FROM unnest(:c_ids::text[], :c_tenants::text[], :c_owners::text[], :c_keys::text[], :c_fingerprints::text[])
         AS c(id, tenant, owner, key, fingerprint)
       WHERE c.key IS NOT NULL
       ON CONFLICT (tenant, owner, idempotency_key) DO UPDATE
         SET fingerprint = excluded.fingerprint, task_id = excluded.task_id, created_at = excluded.created_at
         WHERE k.created_at <= now() - :window_ms::float8 * interval '1 millisecond'
       RETURNING task_id
     )`)
  if (shape.creates)
    parts.push(`created AS (
       INSERT INTO ${s}.tasks (id, tenant, owner, agent, context_id, state, version, created_at, status_at,
         run_pending, lease_owner, lease_expires_at, snapshot)
       SELECT c.id, c.tenant, c.owner, c.agent, c.context_id, c.state, c.version, c.created_at, c.status_at,
         true, c.lease_owner, now() + c.lease_ms * interval '1 millisecond', c.snapshot
       FROM unnest(:c_ids::text[], :c_tenants::text[], :c_owners::text[], :c_agents::text[],
                   :c_context_ids::text[], :c_states::text[], :c_versions::int[], :c_created_at::timestamptz[],
                   :c_status_at::timestamptz[], :c_lease_owners::text[], :c_lease_ms::float8[],
                   ${splitDocuments('c_snapshots')}${shape.keys ? ', :c_keys::text[]' : ''})
         AS c(id, tenant, owner, agent, context_id, state, version, created_at, status_at, lease_owner,
              lease_ms, snapshot${shape.keys ? ', key' : ''})
       ${shape.keys ? 'WHERE c.key IS NULL OR c.id IN (SELECT task_id FROM claimed)' : ''}
       RETURNING id, lease_owner IS NULL AS wake
     )`)
  if (shape.appends)
    parts.push(`updated AS (
       UPDATE ${s}.tasks t SET state = a.state, version = a.version, status_at = a.status_at,
         snapshot = a.snapshot, run_pending = coalesce(a.run_pending, t.run_pending),
         lease_owner = CASE WHEN a.release THEN NULL ELSE t.lease_owner END,
         lease_expires_at = CASE WHEN a.release THEN NULL ELSE t.lease_expires_at END
       FROM unnest(:a_ids::text[], :a_expected::int[], :a_lease_owners::text[], :a_configs::text[],
                   :a_states::text[], :a_versions::int[], :a_status_at::timestamptz[], ${splitDocuments('a_snapshots')},
                   :a_run_pending::boolean[], :a_release::boolean[], :a_request_run::boolean[])
         AS a(id, expected, lease_owner, configs, state, version, status_at, snapshot, run_pending, release,
              request_run)
       WHERE t.id = a.id AND t.version = a.expected
         AND (a.lease_owner IS NULL OR t.lease_owner = a.lease_owner)
         -- On a.id, not t.id: the lookup then runs once per append, where on t.id the planner could
         -- make it a hash key of the join and run it for every row of tasks.
         AND a.configs = (SELECT coalesce(string_agg(p.id, ',' ORDER BY p.id), '')
                          FROM ${s}.push_configs p WHERE p.task_id = a.id)
       RETURNING t.id, a.request_run AND t.run_pending AS wake
     )`)
  const sources = [shape.creates && 'created', shape.appends && 'updated'].filter(Boolean)
  parts.push(`written AS (${sources.map((source) => `SELECT id, wake FROM ${source}`).join(' UNION ALL ')})`)
  if (shape.events)
    parts.push(`events AS (
       INSERT INTO ${s}.events (task_id, seq, body)
       SELECT e.task_id, e.seq, e.body FROM unnest(:e_tasks::text[], :e_seqs::int[], ${splitDocuments('e_bodies')})
         AS e(task_id, seq, body)
       WHERE e.task_id IN (SELECT id FROM written)
     )`)
  if (shape.artifacts)
    parts.push(`artifacts AS (
       INSERT INTO ${s}.artifacts (id, task_id, seq, bytes)
       SELECT r.id, r.task_id, r.seq, r.bytes
       FROM unnest(:r_ids::text[], :r_tasks::text[], :r_seqs::int[], :r_bytes::bytea[]) AS r(id, task_id, seq, bytes)
       WHERE r.task_id IN (SELECT id FROM written)
     )`)
  if (shape.configs)
    parts.push(`configs AS (
       INSERT INTO ${s}.push_configs (task_id, id, tenant, owner, created_at, target)
       SELECT p.task_id, p.id, p.tenant, p.owner, p.created_at, p.target
       FROM unnest(:p_tasks::text[], :p_ids::text[], :p_tenants::text[], :p_owners::text[],
                   :p_created_at::timestamptz[], ${splitDocuments('p_targets')}) AS p(task_id, id, tenant, owner, created_at, target)
       WHERE p.task_id IN (SELECT id FROM written)
     )`)
  if (shape.deliveries)
    parts.push(`deliveries AS (
       INSERT INTO ${s}.deliveries
         (id, task_id, seq, config_id, target, event, task, state, attempts, created_at, next_attempt_at)
       SELECT d.id, d.task_id, d.seq, d.config_id, d.target, d.event, d.task, 'pending', 0, now(), now()
       FROM unnest(:d_ids::text[], :d_tasks::text[], :d_seqs::int[], :d_configs::text[], ${splitDocuments('d_targets')},
                   ${splitDocuments('d_events')}, ${splitDocuments('d_task_jsons')}) AS d(id, task_id, seq, config_id, target, event, task)
       WHERE d.task_id IN (SELECT id FROM written)
     )`)
  parts.push(`notes AS (
       SELECT n.note, (row_number() OVER () - 1) / ${NOTES_PER_NOTIFY} AS chunk
       FROM unnest(:n_tasks::text[], :n_notes::text[]) AS n(task_id, note)
       WHERE n.task_id IN (SELECT id FROM written)
     )`)
  return `WITH ${parts.join(',\n     ')}
     SELECT (SELECT coalesce(array_agg(id), '{}') FROM written) AS written,
       (SELECT count(pg_notify('${EVENTS_CHANNEL}', g.notes))
        FROM (SELECT string_agg(note, E'\\n') AS notes FROM notes GROUP BY chunk) g) AS notified,
       (SELECT pg_notify('${WORK_CHANNEL}', :work_note) WHERE EXISTS (SELECT 1 FROM written WHERE wake)) AS woke`
}

/**
 * The group commit's statements, one per shape a batch takes (a few in practice: a send's
 * creation, then its completion), each made and named on first use and prepared once per
 * connection.
 */
export const batchSql = (s: string) => {
  const byShape = new Map<number, Statement>()
  return {
    commitBatch(shape: BatchShape): Statement {
      if (!shape.creates && !shape.appends) throw new TypeError('a batch writes at least one task')
      const bits = PARTS.reduce((sum, part, i) => (shape[part] ? sum | (1 << i) : sum), 0)
      let found = byShape.get(bits)
      if (!found) {
        found = statement(`sb_commit_batch_${bits}`, commitBatchSql(s, shape))
        byShape.set(bits, found)
      }
      return found
    },
  }
}

export type BatchSql = ReturnType<typeof batchSql>
