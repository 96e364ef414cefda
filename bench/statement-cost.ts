/**
 * `npx tsx bench/statement-cost.ts [--runs 200000]`: what one run of each SQLite statement that
 * reads a parameter's value into its plan costs, as the store writes it (`+?`) and with the bare
 * parameter (`?`) it had before, on this Node's driver (better-sqlite3 12 on Node 20, 13 on 22 and
 * later: see src/store/sqlite/driver.ts). With the bare parameter SQLite compiles the statement
 * again on every run (see prepareAll in src/store/sqlite/db.ts). The database is a store's file
 * with 1,000 bench tasks written; each statement runs in a transaction, as the store's writes run
 * it, alternated with its twin for three rounds; it prints the median nanoseconds per run of each.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { newId } from '../src/model/ids.ts'
import { SQLITE_DRIVER, SqliteDatabase } from '../src/store/sqlite/driver.ts'
import { leaseSql } from '../src/store/sqlite/lease-sql.ts'
import { pushSql } from '../src/store/sqlite/push-sql.ts'
import { retentionSql } from '../src/store/sqlite/retention-sql.ts'
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { taskSql } from '../src/store/sqlite/task-sql.ts'
import { median } from './harness/aggregate.ts'
import { writeBenchTask } from './servers/floor-switchboard-store.ts'

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '200000' } } })
const runs = Number(args.runs)
if (!Number.isSafeInteger(runs) || runs < 1000) throw new Error('--runs takes an integer of at least 1000')

const dir = mkdtempSync(join(tmpdir(), 'sb-statement-cost-'))
const filename = join(dir, 'switchboard.sqlite')
try {
  const store = new SqliteStore({ filename })
  const ids: string[] = []
  for (let i = 0; i < 1000; i++) {
    const id = newId()
    ids.push(id)
    await writeBenchTask(store, { id, contextId: id, messageId: randomUUID(), fingerprint: '', artifacts: 2 })
  }
  await store.close()

  const db = new SqliteDatabase(filename)
  const [tasks, push, leases, retention] = [taskSql(db), pushSql(db), leaseSql(db), retentionSql(db)]
  const taskId = ids[500]!
  const { id: artifactId } = db.prepare('SELECT id FROM artifacts WHERE task_id = ? LIMIT 1').get(taskId) as {
    id: string
  }
  const cases: [string, string, unknown[]][] = [
    ['taskHead (every append; never compiled again)', tasks.taskHead.source, [taskId]],
    ['lastSeq (every artifact, log or chunk append)', tasks.lastSeq.source, [taskId]],
    [
      'taskHeadAndSnapshot (every fold of a task, its tail with it)',
      tasks.taskHeadAndSnapshot.source,
      [taskId],
    ],
    ['eventsPage (a stream catching up)', tasks.eventsPage.source, [taskId, 0, 100]],
    ['pushConfigsOf (every status append)', push.pushConfigsOf.source, [taskId]],
    ['pushConfigsScoped', push.pushConfigsScoped.source, [taskId, 'default', 'anonymous']],
    ['artifact (an artifact read)', tasks.artifact.source, [artifactId]],
    ['claimable (a runner claiming)', leases.claimable.source, [Date.now(), 16]],
    ['claimableDeliveries (the push worker)', push.claimableDeliveries.source, [Date.now(), Date.now(), 16]],
    ['expiredTasks (retention)', retention.expiredTasks.source, ['2000-01-01T00:00:00.000Z', 100]],
  ]
  const bare = (sql: string): string => sql.replace(/\+(\?\d*|@\w+)/g, '$1')
  // Inside one transaction, as the store's writes read: no read lock taken per run.
  const perRun = db.transaction((sql: string, params: unknown[]): number => {
    const statement = db.prepare(sql)
    for (let i = 0; i < runs / 10; i++) statement.all(...params)
    const started = process.hrtime.bigint()
    for (let i = 0; i < runs; i++) statement.all(...params)
    return Number(process.hrtime.bigint() - started) / runs
  })
  const { version } = db.prepare('SELECT sqlite_version() AS version').get() as { version: string }
  console.log(`Node ${process.version}, ${SQLITE_DRIVER} (SQLite ${version}), ${runs} runs a round\n`)
  console.log('| statement | as written (`+?`) ns | bare `?` ns | bare ÷ written |')
  console.log('| --- | ---: | ---: | ---: |')
  for (const [name, sql, params] of cases) {
    const written: number[] = []
    const twin: number[] = []
    for (let round = 0; round < 3; round++) {
      written.push(perRun(sql, params))
      twin.push(perRun(bare(sql), params))
    }
    const [w, b] = [median(written), median(twin)]
    console.log(`| ${name} | ${w.toFixed(0)} | ${b.toFixed(0)} | ${(b / w).toFixed(2)}× |`)
  }
  db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
