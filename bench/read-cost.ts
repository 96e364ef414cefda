/**
 * `npx tsx bench/read-cost.ts [--artifacts 1,10] [--tasks 2000] [--reads 100000] [--rounds 3]`:
 * what the SQLite store alone spends on a GetTask of a finished bench task, without HTTP or a
 * protocol: `--tasks` bench tasks of each count of artifacts written as the engine writes them
 * (store-cost.ts's writes), then read round robin by getTask, `--reads` reads a round. It prints
 * the CPU per read of each round and their median, for each count of artifacts.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { newId } from '../src/model/ids.ts'
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { median } from './harness/aggregate.ts'
import { writeBenchTask } from './servers/floor-switchboard-store.ts'

const SCOPE = { tenant: 'default', owner: 'anonymous' }

const { values: args } = parseArgs({
  options: {
    artifacts: { type: 'string', default: '1,10' },
    tasks: { type: 'string', default: '2000' },
    reads: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
  },
})
const counts = args.artifacts.split(',').map(Number)
const [tasks, reads, rounds] = [Number(args.tasks), Number(args.reads), Number(args.rounds)]
if (counts.some((n) => !Number.isInteger(n) || n < 0) || ![tasks, reads, rounds].every((n) => n > 0))
  throw new Error('--artifacts takes integers ≥ 0, --tasks, --reads and --rounds positive numbers')

/** CPU µs per getTask of each round, on a fresh database file of finished tasks. */
const measure = async (artifacts: number): Promise<number[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-read-cost-'))
  const store = new SqliteStore({ filename: join(dir, 'switchboard.sqlite') })
  try {
    const ids: string[] = []
    for (let i = 0; i < tasks; i++) {
      const id = newId()
      ids.push(id)
      const fresh = { contextId: newId(), messageId: randomUUID(), fingerprint: randomUUID() }
      await writeBenchTask(store, { id, ...fresh, artifacts })
    }
    const read = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const task = await store.getTask(SCOPE, ids[i % ids.length]!)
        if (task?.artifacts.length !== artifacts) throw new Error(`task ${ids[i % ids.length]} read wrong`)
      }
    }
    await read(Math.min(reads, 20_000))
    const perRound: number[] = []
    for (let round = 0; round < rounds; round++) {
      const before = process.cpuUsage()
      await read(reads)
      const used = process.cpuUsage(before)
      perRound.push((used.user + used.system) / reads)
    }
    return perRound
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

for (const n of counts) {
  const perRound = await measure(n)
  const each = perRound.map((us) => us.toFixed(2)).join(', ')
  process.stdout.write(`${n} artifacts: median ${median(perRound).toFixed(2)} µs of CPU per read (${each})\n`)
}
