import { SqliteStore } from '../sqlite/sqlite-store.ts'

/**
 * The store for unit tests: SQLite in memory. Deliberately the same implementation as the
 * embedded store, so a test on the memory store exercises the real SQL and the real transactions.
 */
export const createMemoryStore = (): SqliteStore => new SqliteStore({ filename: ':memory:' })
