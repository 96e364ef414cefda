import type pg from 'pg'

/**
 * A named statement: pg prepares it once per connection. The SQL is written with `:name`
 * placeholders, compiled to `$n` once, so long statements stay readable and bind by name.
 */
export interface Statement {
  name: string
  text: string
  params: readonly string[]
}

export const statement = (name: string, source: string): Statement => {
  const params: string[] = []
  const text = source.replace(/(?<!:):([a-z_][a-z0-9_]*)/g, (_match, param: string) => {
    if (!params.includes(param)) params.push(param)
    return `$${params.indexOf(param) + 1}`
  })
  return { name, text, params }
}

/** Anything that runs queries: the pool (autocommit) or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient

export const run = <R extends pg.QueryResultRow>(
  db: Queryable,
  statement: Statement,
  values: Readonly<Record<string, unknown>>,
): Promise<pg.QueryResult<R>> => {
  const bound = statement.params.map((param) => {
    if (!(param in values)) throw new TypeError(`statement ${statement.name} needs :${param}`)
    return values[param] ?? null
  })
  return db.query<R>({ name: statement.name, text: statement.text, values: bound })
}

/**
 * The session settings of every store connection. Every statement on the hot path reads by key,
 * but a prepared statement's generic plan is made from the statistics of the moment (on a new
 * deployment: near-empty tables, where a sequential scan is cheapest) and kept until the next
 * ANALYZE invalidates it, a minute or more later under load: planned that way, a claim (and the
 * foreign-key checks of that time) read the whole tasks table while it grew. With sequential
 * scans off the planner takes an index whatever the statistics; a statement with no usable index
 * still scans.
 */
export const STORE_SESSION_OPTIONS = '-c enable_seqscan=off'

/**
 * The pool's connection settings: the store's session options, then any the URL gives (`options`,
 * which pg would otherwise prefer to the pool's), so an operator's own `-c` has the last word.
 */
export const storeConnection = (connectionString: string): { connectionString: string; options: string } => {
  const url = URL.canParse(connectionString) ? new URL(connectionString) : undefined
  const own = url?.searchParams.get('options')
  if (!url || own == null) return { connectionString, options: STORE_SESSION_OPTIONS }
  url.searchParams.delete('options')
  return { connectionString: url.toString(), options: `${STORE_SESSION_OPTIONS} ${own}` }
}

/**
 * A column of JSON documents as one parameter: `joinDocuments` joins the documents (already JSON)
 * with the record separator U+001E, which JSON text never holds unescaped, and `splitDocuments`
 * splits them back in order, for `unnest(...)` beside the other columns' arrays. As a json[]
 * parameter pg would escape every quote of every document into an array literal (a tenth of a
 * streaming server's CPU); as one JSON array PostgreSQL would parse each document twice, to
 * check the array and to take it apart. Split, each document is checked once, as json.
 */
export const joinDocuments = (documents: readonly string[]): string => documents.join('\x1e')

export const splitDocuments = (param: string): string => `string_to_array(:${param}::text, E'\\x1e')::json[]`

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/** The schema name, quoted for SQL. Plain identifiers only, so names never need escaping rules. */
export const quoteSchema = (schema: string): string => {
  if (!IDENTIFIER.test(schema)) throw new TypeError(`invalid PostgreSQL schema name: ${schema}`)
  return `"${schema}"`
}

/**
 * The errors after which PostgreSQL has rolled the whole transaction back and the same work may
 * simply run again: a deadlock's victim (40P01) and a serialization failure (40001).
 */
const RETRYABLE_SQLSTATE = new Set(['40P01', '40001'])

/** Attempts of one transaction at most: a victim again and again is a fault, not bad luck. */
export const TRANSACTION_ATTEMPTS = 5

/**
 * Runs `work` in one transaction on one pooled connection, again (up to TRANSACTION_ATTEMPTS in
 * all) when PostgreSQL rolls it back as a deadlock's victim. Even a transaction that locks one row
 * can be one: while it waits for a row, it holds the row's tuple lock, and a writer of several
 * rows (another replica's batch) queues behind it; if that writer holds a row the first lock's
 * holder waits for, the cycle is closed, and the detector may abort any member. `work` must touch
 * nothing but the database, so a rolled-back attempt leaves no trace.
 */
export const transaction = async <T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transactionOnce(pool, work)
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code
      if (attempt >= TRANSACTION_ATTEMPTS || typeof code !== 'string' || !RETRYABLE_SQLSTATE.has(code))
        throw error
    }
  }
}

/**
 * One attempt. A failed ROLLBACK means the connection is broken: it is destroyed rather than
 * returned to the pool.
 */
const transactionOnce = async <T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect()
  let broken: Error | undefined
  // A checked-out client is not covered by the pool's error listener: without this one, a connection
  // reset mid-transaction is an unhandled 'error' event and takes the whole process down. The query
  // in flight rejects on its own; the client is discarded on release.
  const onError = (error: Error): void => {
    broken = error
  }
  client.on('error', onError)
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    try {
      await client.query('ROLLBACK')
    } catch (rollbackError) {
      broken = rollbackError as Error
    }
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}

/** Milliseconds as a parameter of `now() + $n * interval '1 millisecond'`. */
export const ms = (value: number): number => Math.max(0, Math.round(value))
