import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SQLITE_DRIVER, SqliteDatabase } from '../../src/store/sqlite/driver.ts'

const major = Number(process.versions.node.split('.')[0])

// The CI smoke runs this on Node 22 and 24: there the optional better-sqlite3 13 must have been
// installed and chosen, since 12 aborts on Node 24 when a statement is garbage-collected.
test('the SQLite driver is the one this Node runs safely', () => {
  assert.equal(SQLITE_DRIVER, major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3')
})

test('statements left to the garbage collector do not take the process down', async () => {
  const db = new SqliteDatabase(':memory:')
  db.exec('CREATE TABLE t (n INTEGER)')
  for (let i = 0; i < 2_000; i += 1) db.prepare('INSERT INTO t (n) VALUES (?)').run(i)
  // Unreferenced statements are collected by a later GC, off the JavaScript stack when it is idle.
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve))
  ;(globalThis as { gc?: () => void }).gc?.()
  assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 2_000)
  db.close()
})
