import type Database from 'better-sqlite3'
import { prepareAll } from './db.ts'

const COLUMNS = 'id, principal, tenant, scopes, label, created_at, revoked_at'

/** API keys, prepared once. A parameter in a WHERE is `+?`: see prepareAll. */
const API_KEY_SQL = {
  insertApiKey: `INSERT INTO api_keys (id, hash, principal, tenant, scopes, label, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  activeApiKey: `SELECT ${COLUMNS} FROM api_keys WHERE hash = +? AND revoked_at IS NULL`,
  apiKeys: `SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`,
  revokeApiKey: 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = +?',
}

export type ApiKeySql = Record<keyof typeof API_KEY_SQL, Database.Statement>

export const apiKeySql = (db: Database.Database): ApiKeySql => prepareAll(db, API_KEY_SQL)
