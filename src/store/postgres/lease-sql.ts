import { RUNNABLE_SQL } from '../run-pending.ts'
import { statement } from './db.ts'

/**
 * Execution leases, on columns of the task row. Every time is the database's (now()), so replicas
 * with skewed clocks agree on who holds what. `s` is the quoted schema.
 */
export const leaseSql = (s: string) => ({
  /**
   * One statement claims: pick runnable tasks whose lease is free or expired, oldest first,
   * skipping rows another claimer (or an append) holds locked, then take the lease. A row a
   * concurrent claimer took after this statement's snapshot is re-checked under the lock and
   * dropped, so no task goes to two claimers. `interrupted`: the previous holder never released.
   */
  claimTasks: statement(
    'sb_claim_tasks',
    `WITH picked AS (
       SELECT id, lease_owner AS previous_owner FROM ${s}.tasks
       WHERE run_pending AND (lease_owner IS NULL OR lease_expires_at < now())
         AND (:agents::text[] IS NULL OR agent = ANY(:agents::text[]))
       ORDER BY created_at, id
       LIMIT :limit
       FOR NO KEY UPDATE SKIP LOCKED
     ),
     claimed AS (
       UPDATE ${s}.tasks t SET lease_owner = :owner, lease_expires_at = now() + :ttl_ms::float8 * interval '1 millisecond'
       FROM picked WHERE t.id = picked.id
       RETURNING t.snapshot, t.created_at, t.id, picked.previous_owner IS NOT NULL AS interrupted
     )
     SELECT snapshot, interrupted FROM claimed ORDER BY created_at, id`,
  ),

  /** Extends only what `owner` still holds, and says which those are. */
  renewLeases: statement(
    'sb_renew_leases',
    `UPDATE ${s}.tasks SET lease_expires_at = now() + :ttl_ms::float8 * interval '1 millisecond'
     WHERE lease_owner = :owner AND id = ANY(:ids::text[])
     RETURNING id`,
  ),

  /**
   * A run that ends while its task is SUBMITTED or WORKING (an answer arrived meanwhile, or the run
   * never started) leaves the task runnable; otherwise the task waits for input or is finished.
   */
  releaseLease: statement(
    'sb_release_lease',
    `UPDATE ${s}.tasks SET lease_owner = NULL, lease_expires_at = NULL,
       run_pending = ${RUNNABLE_SQL}
     WHERE id = :task_id AND lease_owner = :owner`,
  ),

  expireAllLeases: statement(
    'sb_expire_all_leases',
    `UPDATE ${s}.tasks SET lease_expires_at = '-infinity' WHERE lease_owner IS NOT NULL`,
  ),

  expireLeasesOf: statement(
    'sb_expire_leases_of',
    `UPDATE ${s}.tasks SET lease_expires_at = '-infinity' WHERE lease_owner = :owner`,
  ),
})

export type LeaseSql = ReturnType<typeof leaseSql>
