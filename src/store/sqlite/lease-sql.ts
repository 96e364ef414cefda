import type Database from 'better-sqlite3'
import { RUNNABLE_SQL } from '../run-pending.ts'
import { prepareAll } from './db.ts'
import { SNAPSHOT_COLUMNS } from './rows.ts'

/**
 * Execution leases, on columns of the task row, prepared once. Times are epoch milliseconds.
 * A parameter in a WHERE or LIMIT is `+?`: see prepareAll.
 */
const LEASE_SQL = {
  claimable: `SELECT id, ${SNAPSHOT_COLUMNS}, lease_owner FROM tasks
    WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?)
    ORDER BY created_at LIMIT +?`,
  claimableForAgents: `SELECT id, ${SNAPSHOT_COLUMNS}, lease_owner FROM tasks
    WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?)
      AND agent IN (SELECT value FROM json_each(?))
    ORDER BY created_at LIMIT +?`,
  anyClaimable:
    'SELECT 1 FROM tasks WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?) LIMIT 1',
  takeLease: 'UPDATE tasks SET lease_owner = ?, lease_expires_at = ? WHERE id = +?',
  renewLeases:
    'UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = +? AND id IN (SELECT value FROM json_each(?))',
  heldLeases: 'SELECT id FROM tasks WHERE lease_owner = +? AND id IN (SELECT value FROM json_each(?))',
  // A run that ends while its task is SUBMITTED or WORKING (an answer arrived meanwhile, or the run
  // never started) leaves the task runnable; otherwise the task waits or is finished.
  releaseLease: `UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL,
    run_pending = ${RUNNABLE_SQL}
    WHERE id = +? AND lease_owner = +?`,
  expireAllLeases: 'UPDATE tasks SET lease_expires_at = 0 WHERE lease_owner IS NOT NULL',
  expireLeasesOf: 'UPDATE tasks SET lease_expires_at = 0 WHERE lease_owner = +?',
}

export type LeaseSql = Record<keyof typeof LEASE_SQL, Database.Statement>

export const leaseSql = (db: Database.Database): LeaseSql => prepareAll(db, LEASE_SQL)
