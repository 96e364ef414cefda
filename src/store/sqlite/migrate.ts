import type Database from 'better-sqlite3'
import { SwitchboardError } from '../../model/errors.ts'
import { nowIso } from '../../model/time.ts'
import { SQLITE_MIGRATIONS } from './migrations.ts'

/**
 * Brings the database up to the last of `migrations`, each in a transaction that records its
 * number first. A schema newer than this code is refused, since this process would misread it.
 * Tests pass a prefix of the list to build a database as an older Switchboard left it.
 */
export const migrate = (db: Database.Database, migrations: readonly string[] = SQLITE_MIGRATIONS): void => {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  )
  const current =
    (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0
  if (current > SQLITE_MIGRATIONS.length) {
    throw new SwitchboardError(
      'INTERNAL',
      `the database schema is version ${current}, newer than this Switchboard knows (${SQLITE_MIGRATIONS.length}); upgrade Switchboard`,
    )
  }
  migrations.forEach((sql, index) => {
    const version = index + 1
    if (version <= current) return
    db.transaction(() => {
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, nowIso())
      db.exec(sql)
    })()
  })
}
