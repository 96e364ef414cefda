// Loaded with --import into the a2a-db CLI's process (sdk.ts): the CLI's `import('better-sqlite3')`
// gets the driver Switchboard runs on this Node, named by SWITCHBOARD_SQLITE_DRIVER (SQLITE_DRIVER in
// src/store/sqlite/driver.ts), as `npm install better-sqlite3` gives a user of that Node. From Node
// 22 that is better-sqlite3 13: version 12, the package's own name here, aborts on Node 24 when its
// statements are collected, and the CLI died of it at exit.
import { register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

const driver = process.env.SWITCHBOARD_SQLITE_DRIVER ?? 'better-sqlite3'

if (isMainThread && driver !== 'better-sqlite3') register(import.meta.url)

export const resolve = (specifier, context, next) =>
  next(specifier === 'better-sqlite3' ? driver : specifier, context)
