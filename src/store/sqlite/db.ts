import type { Tracer } from '@opentelemetry/api'
import type Database from 'better-sqlite3'
import { activeWriter, type BatchWrite, failCommitSpan, startCommitSpan } from '../commit-span.ts'
import { SqliteDatabase } from './driver.ts'

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  filename: string
  /** 'normal' survives a process crash (kill -9); 'full' also survives power loss. */
  synchronous?: 'normal' | 'full'
  /** Caps the file at this many pages (`PRAGMA max_page_count`): writes past it fail as on a full disk. */
  maxPageCount?: number
  /**
   * Traces each group commit as a `store.commit` span (docs/observability.md). Absent, tracing is
   * off and a commit does no tracing work at all.
   */
  tracer?: Tracer
  /** Told if the WAL checkpoints' worker fails (checkpointer.ts): SQLite's own checkpoints take over. */
  onCheckpointFailure?: (error: Error) => void
}

/**
 * Opens the database in WAL mode, with the durability asked for, after checking it: a corrupt
 * file fails here, before anything is served from it, rather than on the first request that
 * reads the damaged page.
 */
export const openDatabase = (options: SqliteStoreOptions): Database.Database => {
  const db = new SqliteDatabase(options.filename)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    db.pragma('busy_timeout = 5000')
    if (options.maxPageCount !== undefined) db.pragma(`max_page_count = ${options.maxPageCount}`)
    assertIntact(db)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/**
 * `PRAGMA quick_check(1)`: every page and index entry read once (time grows with the file, about
 * a second per GiB), stopping at the first fault; it skips only the cross-checks of index
 * contents against their tables, which `integrity_check` adds at many times the cost.
 */
const assertIntact = (db: Database.Database): void => {
  const [row] = db.pragma('quick_check(1)') as { quick_check: string }[]
  if (row?.quick_check === 'ok') return
  throw Object.assign(
    new Error(`database disk image is malformed: ${row?.quick_check.replace(/\s+/g, ' ')}`),
    {
      code: 'SQLITE_CORRUPT',
    },
  )
}

interface PendingWrite extends BatchWrite {
  body: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/**
 * Group commit: every write issued in the same turn of the event loop, by any task, shares one
 * transaction, and a refused write (a terminal task, a lost lease) rolls back alone. Nobody is
 * answered before the COMMIT, so "acknowledged means durable" holds; what is saved is the
 * per-transaction cost (BEGIN, COMMIT, WAL frames of shared pages), which dominated the write
 * path under concurrency.
 */
export class GroupCommit {
  /**
   * Runs a function in a transaction. better-sqlite3's `db.transaction()` builds several wrapper
   * functions on every call, which cost as much as a small statement; wrapping once and passing
   * the body as an argument keeps the same semantics (BEGIN, COMMIT, ROLLBACK on throw).
   */
  readonly #transaction: <T>(body: () => T) => T
  /** Writes waiting for the next group commit. */
  #pending: PendingWrite[] = []
  readonly #db: Database.Database
  readonly #tracer: Tracer | undefined
  readonly #committed: (() => void) | undefined

  /** `committed`: called after each COMMIT that stored something (the checkpointer's cue). */
  constructor(db: Database.Database, options: { tracer?: Tracer; committed?: () => void } = {}) {
    this.#db = db
    this.#tracer = options.tracer
    this.#committed = options.committed
    const inTransaction = db.transaction((body: () => unknown) => body())
    this.#transaction = <T>(body: () => T): T => inTransaction(body) as T
  }

  /** Runs `body` (the store `operation` named) in the next group commit; settles once that commit is done. */
  write<T>(operation: string, body: () => T): Promise<T> {
    // The writer's span is looked up only when tracing: the commit runs later, outside its context.
    const writer = this.#tracer && activeWriter()
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ operation, writer, body, resolve: resolve as (value: unknown) => void, reject })
      if (this.#pending.length === 1) setImmediate(() => this.flush())
    })
  }

  /** Commits the writes waiting now (the next turn's commit finds none left). */
  flush(): void {
    const batch = this.#pending
    this.#pending = []
    if (batch.length === 0) return
    if (!this.#tracer) {
      if (this.#commit(batch) === undefined) this.#committed?.()
      return
    }
    const span = startCommitSpan(this.#tracer, 'sqlite', batch)
    const failure = this.#commit(batch)
    if (failure !== undefined) failCommitSpan(span, failure.error)
    span.end()
    if (failure === undefined) this.#committed?.()
  }

  /**
   * One batch in one transaction; what made the whole transaction fail, if it did. Writes are
   * seldom refused, so the batch first runs without savepoints (two statements per write saved);
   * when a write throws, the transaction is rolled back and the batch runs again with a savepoint
   * per write, so the refused one fails alone. Bodies only read and write the database, so
   * running one again after a rollback gives what the first run would have.
   */
  #commit(batch: readonly PendingWrite[]): { error: unknown } | undefined {
    const values: unknown[] = []
    let refused = false
    try {
      this.#transaction(() => {
        for (const write of batch) {
          try {
            values.push(write.body())
          } catch (error) {
            refused = true
            throw error
          }
        }
      })
    } catch (error) {
      if (!refused) {
        // The COMMIT itself failed: nothing of the batch is stored.
        for (const write of batch) write.reject(error)
        return { error }
      }
      return this.#commitIsolated(batch)
    }
    for (const [i, write] of batch.entries()) write.resolve(values[i])
    return undefined
  }

  /** The batch again, each write in a savepoint of its own. */
  #commitIsolated(batch: readonly PendingWrite[]): { error: unknown } | undefined {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
    try {
      this.#transaction(() => {
        for (const write of batch) {
          try {
            // Nested in the batch's transaction, better-sqlite3 runs this one in a savepoint.
            outcomes.push({ ok: true, value: this.#transaction(write.body) })
          } catch (error) {
            // Some errors (SQLITE_FULL, SQLITE_IOERR) make SQLite roll back the whole transaction,
            // not just the savepoint: the batch is lost, and the writes after this one must not
            // run outside it, each committing on its own. Every write of the batch fails with it.
            if (!this.#db.inTransaction) throw error
            outcomes.push({ ok: false, error })
          }
        }
      })
    } catch (error) {
      for (const write of batch) write.reject(error)
      return { error }
    }
    for (const [i, write] of batch.entries()) {
      const outcome = outcomes[i]!
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.error)
    }
    return undefined
  }
}

/**
 * Prepares a set of statements once, keeping their names.
 *
 * A parameter compared with `=` in a WHERE, or after LIMIT, is written `+?` (`+@name`), never bare.
 * SQLite's planner reads the value of such a parameter in some statements (a LIMIT's always; from
 * SQLite 3.54, which better-sqlite3 13 bundles for Node 22 and later, an `=`'s in any statement it
 * can run more than one way: an ORDER BY, max(), a join) and marks the statement to be compiled
 * again once that parameter is bound anew; better-sqlite3 clears the bindings after every run, so
 * such a statement was compiled again on every run, at 4 to 20 times its cost
 * (bench/statement-cost.ts). `+?` is the same value (a parameter has no affinity, with or without
 * the `+`) and the same plan, but no longer one the planner reads. Written so everywhere, not only
 * where it is measured, since which statements SQLite marks changes with its version.
 * test/store/sqlite-statements.test.ts holds the rule.
 */
export const prepareAll = <K extends string>(
  db: Database.Database,
  sql: Readonly<Record<K, string>>,
): Record<K, Database.Statement> => {
  const statements = {} as Record<K, Database.Statement>
  for (const key of Object.keys(sql) as K[]) statements[key] = db.prepare(sql[key])
  return statements
}

/** Statements whose SQL is built at run time (list filters, page sizes), each prepared once. */
export class StatementCache {
  readonly #db: Database.Database
  readonly #statements = new Map<string, Database.Statement>()

  constructor(db: Database.Database) {
    this.#db = db
  }

  get(sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }
}
