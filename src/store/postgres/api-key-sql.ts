import { statement } from './db.ts'

const COLUMNS = 'id, principal, tenant, scopes, label, created_at, revoked_at'

/** API keys. `s` is the quoted schema. */
export const apiKeySql = (s: string) => ({
  insertApiKey: statement(
    'sb_insert_api_key',
    `INSERT INTO ${s}.api_keys (id, hash, principal, tenant, scopes, label, created_at)
     VALUES (:id, :hash, :principal, :tenant, :scopes::json, :label::text, :created_at::timestamptz)`,
  ),

  activeApiKey: statement(
    'sb_active_api_key',
    `SELECT ${COLUMNS} FROM ${s}.api_keys WHERE hash = :hash AND revoked_at IS NULL`,
  ),

  apiKeys: statement('sb_api_keys', `SELECT ${COLUMNS} FROM ${s}.api_keys ORDER BY created_at, id`),

  revokeApiKey: statement(
    'sb_revoke_api_key',
    `UPDATE ${s}.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = :id RETURNING id`,
  ),
})

export type ApiKeySql = ReturnType<typeof apiKeySql>
