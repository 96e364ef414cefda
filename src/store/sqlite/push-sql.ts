import type Database from 'better-sqlite3'
import { prepareAll } from './db.ts'

/** Push configs and the push outbox, prepared once. A parameter in a WHERE or LIMIT is `+?`: see prepareAll. */
const PUSH_SQL = {
  insertPushConfig:
    'INSERT INTO push_configs (task_id, id, tenant, owner, created_at, target) VALUES (?, ?, ?, ?, ?, ?)',
  // owner NULL: a tenant-wide scope (see visible in store/rows.ts).
  pushConfig:
    'SELECT id, created_at, target FROM push_configs WHERE task_id = +? AND id = +? AND tenant = +? AND owner = coalesce(?, owner)',
  pushConfigsOf: 'SELECT id, created_at, target FROM push_configs WHERE task_id = +? ORDER BY created_at, id',
  pushConfigsScoped:
    'SELECT id, created_at, target FROM push_configs WHERE task_id = +? AND tenant = +? AND owner = coalesce(?, owner) ORDER BY created_at, id',
  deletePushConfig: 'DELETE FROM push_configs WHERE task_id = +? AND id = +?',
  dropPendingDeliveries: "DELETE FROM deliveries WHERE task_id = +? AND config_id = +? AND state = 'pending'",
  insertDelivery: `INSERT INTO deliveries
    (id, task_id, seq, config_id, target, event, task, state, attempts, created_at, next_attempt_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  // Only the earliest pending delivery of each (task, config) is eligible: per-endpoint order.
  // INDEXED BY: left to itself the planner scans every pending row by state and sorts them all,
  // which makes each claim cost O(backlog); the due index yields rows in claim order and stops.
  claimableDeliveries: `SELECT d.* FROM deliveries d INDEXED BY deliveries_due
    WHERE d.state = 'pending' AND d.next_attempt_at <= ?
      AND (d.claim_owner IS NULL OR d.claim_expires_at < ?)
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.task_id = d.task_id AND e.config_id = d.config_id
                      AND e.state = 'pending' AND e.seq < d.seq)
    ORDER BY d.next_attempt_at, d.task_id, d.seq LIMIT +?`,
  anyDueDelivery:
    "SELECT 1 FROM deliveries INDEXED BY deliveries_due WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1",
  claimDelivery: 'UPDATE deliveries SET claim_owner = ?, claim_expires_at = ? WHERE id = +?',
  settleDelivery: `UPDATE deliveries SET state = ?, attempts = attempts + 1, last_error = ?,
    next_attempt_at = ?, delivered_at = ?, claim_owner = NULL, claim_expires_at = NULL
    WHERE id = +? AND claim_owner = +?`,
  listDeliveries: `SELECT * FROM deliveries WHERE (?1 IS NULL OR state = +?1) AND (?2 IS NULL OR task_id = +?2)
    ORDER BY created_at DESC, seq DESC LIMIT +?3`,
  delivery: 'SELECT * FROM deliveries WHERE id = +?',
  retryDelivery: `UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, created_at = ?, last_error = NULL,
    claim_owner = NULL, claim_expires_at = NULL WHERE id = +? AND state = 'dead'`,
  countDeliveries: 'SELECT state, count(*) AS n FROM deliveries GROUP BY state',
}

export type PushSql = Record<keyof typeof PUSH_SQL, Database.Statement>

export const pushSql = (db: Database.Database): PushSql => prepareAll(db, PUSH_SQL)
