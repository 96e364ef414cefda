/**
 * `npx tsx bench/wal-frames.ts [--tasks 2000] [--warm 3000] [--artifacts 10]`: the pages a stream
 * task's writes put in the SQLite WAL, by table and index. It writes `--warm` bench tasks (the
 * writes of store-cost.ts, 16 at a time), checkpoints the WAL into the file and starts it over,
 * writes `--tasks` more with the checkpoint worker idle, then reads the WAL's frame headers and
 * names each frame's page from the `dbstat` table. Every frame is a 4 KiB page written to the
 * WAL at its commit and copied again into the file by a checkpoint: what a task costs the disk.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { Checkpointer } from '../src/store/sqlite/checkpointer.ts'
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { writeBenchTasks } from './servers/floor-switchboard-store.ts'

const WAL_HEADER_BYTES = 32
const FRAME_HEADER_BYTES = 24

const { values: args } = parseArgs({
  options: {
    tasks: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '3000' },
    artifacts: { type: 'string', default: '10' },
  },
})
const tasks = Number(args.tasks)
const warm = Number(args.warm)
const artifacts = Number(args.artifacts)
if (![tasks, warm, artifacts].every((n) => Number.isInteger(n) && n >= 0) || tasks === 0)
  throw new Error('--tasks takes a positive integer, --warm and --artifacts integers ≥ 0')

// The frames must stay in the WAL to be read: no checkpoint copies them and starts it over.
Checkpointer.prototype.committed = () => {}

const dir = mkdtempSync(join(tmpdir(), 'sb-wal-frames-'))
const file = join(dir, 'switchboard.sqlite')
try {
  const store = new SqliteStore({ filename: file })
  await writeBenchTasks(store, { count: warm, artifacts })
  const side = new Database(file)
  side.pragma('wal_checkpoint(TRUNCATE)')
  side.close()
  await writeBenchTasks(store, { count: tasks, artifacts })

  const wal = readFileSync(`${file}-wal`)
  const reader = new Database(file, { readonly: true })
  const pages = new Map<number, string>()
  for (const row of reader.prepare('SELECT name, pageno, pagetype FROM dbstat').all() as {
    name: string
    pageno: number
    pagetype: string
  }[])
    pages.set(row.pageno, `${row.name} (${row.pagetype})`)
  reader.close()
  await store.close()

  const pageSize = wal.readUInt32BE(8)
  const byPage = new Map<string, number>()
  let frames = 0
  let commits = 0
  for (let at = WAL_HEADER_BYTES; at + FRAME_HEADER_BYTES + pageSize <= wal.length; ) {
    const page = wal.readUInt32BE(at)
    if (page === 0) break
    frames += 1
    if (wal.readUInt32BE(at + 4) !== 0) commits += 1
    const name = pages.get(page) ?? '(a page freed since)'
    byPage.set(name, (byPage.get(name) ?? 0) + 1)
    at += FRAME_HEADER_BYTES + pageSize
  }
  console.log(
    `${tasks} tasks of ${artifacts} artifacts after ${warm}: ${frames} frames in ${commits} commits, ` +
      `${(frames / tasks).toFixed(2)} frames (${((frames * pageSize) / tasks / 1024).toFixed(1)} KiB) a task`,
  )
  console.log('| page of | frames a task |\n| --- | ---: |')
  for (const [name, count] of [...byPage].sort((a, b) => b[1] - a[1]))
    console.log(`| ${name} | ${(count / tasks).toFixed(2)} |`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
