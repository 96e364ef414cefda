import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/**
 * The SQLite driver for the running Node. better-sqlite3 12 is built on the raw `node::ObjectWrap`,
 * whose destructor on Node 24.19+ asserts a live environment: a statement collected by an idle or
 * final GC aborts the process (SIGABRT). Version 13 moved to Node-API and is fixed, but needs
 * Node 22 and crashes on Node 20. So both are installed: 12 as `better-sqlite3`, 13 as the optional
 * `better-sqlite3-13`, which npm skips on Node 20 by its `engines` field. Same API, same file format.
 */
const require = createRequire(import.meta.url)

const NODE_MAJOR = Number(process.versions.node.split('.')[0])

const load = (): { Database: typeof BetterSqlite3; driver: string } => {
  if (NODE_MAJOR >= 22) {
    try {
      return { Database: require('better-sqlite3-13'), driver: 'better-sqlite3-13' }
    } catch (error) {
      // Installed without optional dependencies: 12 still runs on 22; on 24 it may abort, so say so.
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error
      if (NODE_MAJOR >= 24) {
        process.emitWarning(
          'better-sqlite3-13 is not installed (optional dependencies omitted?): better-sqlite3 12 can abort on Node 24',
        )
      }
    }
  }
  return { Database: require('better-sqlite3'), driver: 'better-sqlite3' }
}

const loaded = load()

/** The `better-sqlite3` Database class this Node can run. */
export const SqliteDatabase: typeof BetterSqlite3 = loaded.Database

/** Which package `SqliteDatabase` came from: 'better-sqlite3-13' on Node 22 and later, else 'better-sqlite3'. */
export const SQLITE_DRIVER = loaded.driver

/** Where that package's entry point is: a worker thread loads the same driver from it. */
export const SQLITE_DRIVER_PATH: string = require.resolve(loaded.driver)
