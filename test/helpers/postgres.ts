import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The server the PostgreSQL tests use; unset, they are skipped with `PG_SKIP`. */
export const PG_URL = process.env.SWITCHBOARD_TEST_PG

export const PG_SKIP_MESSAGE = 'SWITCHBOARD_TEST_PG not set: PostgreSQL tests skipped'

/**
 * For `describe(name, { skip: pgSkip }, …)`: false when PostgreSQL is configured. CI sets
 * SWITCHBOARD_REQUIRE_PG=1, where a missing URL must fail the run rather than skip quietly.
 */
export const pgSkip: string | false =
  PG_URL || process.env.SWITCHBOARD_REQUIRE_PG === '1' ? false : PG_SKIP_MESSAGE

const adminQuery = async (sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/**
 * A database of one test file's own: created at the start, dropped at the end, so files run in
 * any order and in parallel. Its own database also gives it its own LISTEN/NOTIFY namespace.
 * Cases inside take fresh schemas from `schema()`.
 */
export interface TestDatabase {
  readonly name: string
  readonly url: string
  /** A new, unused schema name (the store creates it on init). */
  schema(): string
  /** Connections open to this database: a leak check. */
  openConnections(): Promise<number>
  /** Fails if a connection is still open, then drops the database. */
  drop(): Promise<void>
}

export const createTestDatabase = async (label: string): Promise<TestDatabase> => {
  if (!PG_URL) throw new Error('SWITCHBOARD_TEST_PG is not set, and SWITCHBOARD_REQUIRE_PG=1 requires it')
  const name = `sbtest_${label}_${process.pid}_${randomBytes(3).toString('hex')}`
  await adminQuery(`CREATE DATABASE ${name}`)
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  let schemas = 0
  const openConnections = async (): Promise<number> => {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      )
      return rows[0]?.n ?? 0
    } finally {
      await client.end()
    }
  }
  return {
    name,
    url: url.toString(),
    schema: () => {
      schemas += 1
      return `case_${schemas}`
    },
    openConnections,
    async drop() {
      // A backend takes a moment to leave pg_stat_activity after its client said goodbye.
      let open = await openConnections()
      for (let i = 0; open > 0 && i < 50; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        open = await openConnections()
      }
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      if (open > 0)
        throw new Error(`${open} connection(s) to ${name} were left open: a pool or client leaked`)
    },
  }
}
