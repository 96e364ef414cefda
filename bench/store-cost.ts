/**
 * `npx tsx bench/store-cost.ts [--artifacts 0,10] [--tasks 8000] [--rounds 3]`: what the SQLite
 * store alone spends on a task's writes, without HTTP or a protocol: the writes the engine makes
 * for a SendStreamingMessage of the bench agent (the task created with its lease and the
 * message's idempotency key, then WORKING, the artifacts and COMPLETED in one append, as the run
 * batches them), 16 tasks at a time so that the group commit batches as under load. Each count of
 * artifacts runs on a fresh file, the counts alternated for `--rounds` rounds; it prints the
 * process's CPU (every thread: the checkpoint worker too) per task, and the median of the rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { median } from './harness/aggregate.ts'
import { writeBenchTasks } from './servers/floor-switchboard-store.ts'

const WARMUP_TASKS = 1000

const { values: args } = parseArgs({
  options: {
    artifacts: { type: 'string', default: '0,10' },
    tasks: { type: 'string', default: '8000' },
    rounds: { type: 'string', default: '3' },
  },
})
const counts = args.artifacts.split(',').map(Number)
const tasks = Number(args.tasks)
const rounds = Number(args.rounds)
if (counts.some((n) => !Number.isInteger(n) || n < 0) || !(tasks > 0) || !(rounds > 0))
  throw new Error('--artifacts takes integers ≥ 0, --tasks and --rounds positive numbers')

/** CPU µs per task on a fresh database file. */
const measure = async (artifacts: number): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-store-cost-'))
  const store = new SqliteStore({ filename: join(dir, 'switchboard.sqlite') })
  try {
    await writeBenchTasks(store, { count: WARMUP_TASKS, artifacts })
    const before = process.cpuUsage()
    await writeBenchTasks(store, { count: tasks, artifacts })
    const used = process.cpuUsage(before)
    return (used.user + used.system) / tasks
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results = new Map<number, number[]>(counts.map((n) => [n, []]))
for (let round = 1; round <= rounds; round++) {
  for (const n of counts) {
    const us = await measure(n)
    results.get(n)!.push(us)
    process.stdout.write(`round ${round}, ${n} artifacts: ${us.toFixed(1)} µs of CPU per task\n`)
  }
}
for (const [n, values] of results) {
  process.stdout.write(`${n} artifacts: median ${median(values).toFixed(1)} µs of CPU per task\n`)
}
