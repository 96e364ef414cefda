import type pg from 'pg'
import { SwitchboardError } from '../../model/errors.ts'
import { quoteSchema, transaction } from './db.ts'
import { POSTGRES_MIGRATIONS } from './migrations.ts'

/**
 * Brings `schema` up to the last migration. Everything happens in one transaction that first takes
 * a transaction-scoped advisory lock keyed by the schema name: replicas starting together queue on
 * the lock, and each one after the first finds the work done. A schema newer than this code is
 * refused, since this replica would misread it. Returns the versions it applied. Tests pass a
 * prefix of the list to build a schema as an older Switchboard left it.
 */
export const migrate = async (
  pool: pg.Pool,
  schema: string,
  migrations: readonly ((schema: string) => string)[] = POSTGRES_MIGRATIONS,
): Promise<number[]> => {
  const s = quoteSchema(schema)
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `switchboard.migrate:${schema}`,
    ])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.migrations (
      version    integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.migrations`,
    )
    const current = rows[0]?.version ?? 0
    if (current > POSTGRES_MIGRATIONS.length) {
      throw new SwitchboardError(
        'INTERNAL',
        `the database schema ${schema} is version ${current}, newer than this Switchboard knows (${POSTGRES_MIGRATIONS.length}); upgrade Switchboard`,
      )
    }
    const applied: number[] = []
    for (const [index, migration] of migrations.entries()) {
      const version = index + 1
      if (version <= current) continue
      await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [version])
      await client.query(migration(s))
      applied.push(version)
    }
    return applied
  })
}
