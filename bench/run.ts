/**
 * `npm run bench [-- --quick]`: Switchboard and @a2a-js/sdk 1.3 side by side on this machine, in
 * one run, with the same trivial agent. Prints the tables and the ratios, and writes them to
 * bench/results/latest.json and bench/README.md (with `--no-readme`, to bench/results/unpublished.json
 * only, leaving the published run alone). `--profile` instead records CPU profiles of
 * Switchboard during `send` and `stream` and summarises them (see bench/README.md).
 */
import { mkdirSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Binding } from './client/a2a.ts'
import type { RunRecord } from './harness/aggregate.ts'
import { buildSwitchboard } from './harness/build.ts'
import { heapProfile } from './harness/heap-profile-run.ts'
import { measureOnce } from './harness/measure.ts'
import {
  makePlan,
  PINNINGS,
  type Pinning,
  type Plan,
  SCENARIOS,
  type Scenario,
  targetsFor,
} from './harness/plan.ts'
import { DEFAULT_PG_URL, pgReachable } from './harness/postgres.ts'
import { canPin } from './harness/processes.ts'
import { profile } from './harness/profile-run.ts'
import { publish, readOutcome } from './harness/publish.ts'
import type { Machine } from './harness/report.ts'
import { MAX_ARTIFACTS, STREAM_ARTIFACTS, TARGETS, type Target, usesPostgres } from './protocol.ts'

const BENCH = import.meta.dirname
const RESULTS = join(BENCH, 'results')
const README = join(BENCH, 'README.md')

const listOf = <T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  what: string,
): T[] | undefined => {
  if (value === undefined) return undefined
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const item of items) {
    if (!allowed.includes(item as T))
      throw new Error(`unknown ${what} "${item}"; one of ${allowed.join(', ')}`)
  }
  return items as T[]
}

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'heap-profile': { type: 'boolean', default: false },
    promoted: { type: 'boolean', default: false },
    only: { type: 'string' },
    targets: { type: 'string' },
    bindings: { type: 'string' },
    repeat: { type: 'string' },
    warmup: { type: 'string' },
    measure: { type: 'string' },
    'stream-artifacts': { type: 'string' },
    pin: { type: 'string' },
    'no-readme': { type: 'boolean', default: false },
    'from-results': { type: 'boolean', default: false },
  },
})
const number = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value)
const only = listOf<Scenario>(args.only, SCENARIOS, 'scenario')
const targets = listOf<Target>(args.targets, TARGETS, 'target')
const bindings = listOf<Binding>(args.bindings, ['jsonrpc', 'rest', 'grpc'], 'binding')
const repeats = number(args.repeat)
const warmupMs = number(args.warmup)
const measureMs = number(args.measure)
const pinning = listOf<Pinning>(args.pin, PINNINGS, 'pinning')?.[0]
const streamArtifacts = number(args['stream-artifacts'])
if (streamArtifacts !== undefined) {
  if (!Number.isInteger(streamArtifacts) || streamArtifacts < 0 || streamArtifacts > MAX_ARTIFACTS)
    throw new Error(`--stream-artifacts must be an integer from 0 to ${MAX_ARTIFACTS}`)
  // The goals are set for the default stream: another one measures its cost, it publishes no goals.
  if (streamArtifacts !== STREAM_ARTIFACTS && !args['no-readme'] && !args.profile)
    throw new Error(`--stream-artifacts other than ${STREAM_ARTIFACTS} needs --no-readme`)
}
if (args.promoted && !args['heap-profile']) throw new Error('--promoted is a mode of --heap-profile')
const plan: Plan = makePlan({
  quick: args.quick,
  ...(only && { only }),
  ...(targets && { targets }),
  ...(bindings && { bindings }),
  ...(repeats !== undefined && { repeats }),
  ...(warmupMs !== undefined && { warmupMs }),
  ...(measureMs !== undefined && { measureMs }),
  ...(pinning !== undefined && { pinning: canPin ? pinning : 'none' }),
  ...(streamArtifacts !== undefined && { streamArtifacts }),
})
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`
const pgUrl = process.env.SWITCHBOARD_BENCH_PG ?? DEFAULT_PG_URL
mkdirSync(RESULTS, { recursive: true })

const machine: Machine = {
  nproc: cpus().length,
  cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
  node: process.version,
  loadBefore: loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
  loadAfter: '',
}

const notes: string[] = []
if (plan.targets.some(usesPostgres)) {
  const reachable = await pgReachable(pgUrl)
  if (reachable !== true) {
    plan.targets = plan.targets.filter((t) => !usesPostgres(t))
    notes.push(
      `PostgreSQL rows skipped: ${pgUrl.replace(/\/\/[^@/]*@/, '//…@')} is unreachable (${reachable}).`,
    )
  } else {
    notes.push(
      'Switchboard PostgreSQL: the database server is local and not pinned; its CPU is not in the server CPU column.',
    )
  }
}
if (plan.mode === 'quick')
  notes.push(
    'Quick mode: JSON-RPC only, no PostgreSQL, one short round per row; run `npm run bench` for the full table.',
  )

if (args['from-results']) {
  // Renders the last run's report again (after a change to the tables), without measuring anything.
  publish(readOutcome(RESULTS), { results: RESULTS, ...(!args['no-readme'] && { readme: README }) })
  process.exit(0)
}

// Every target that runs Switchboard loads its build (harness/build.ts): made here, from this tree.
if (args.profile || args['heap-profile'] || plan.targets.some((target) => target.startsWith('switchboard')))
  buildSwitchboard()

if (args.profile) {
  await profile({
    plan,
    chosen: only !== undefined,
    pgUrl,
    resultsDir: RESULTS,
    targets: targets ?? ['switchboard-sqlite'],
  })
  process.exit(0)
}

if (args['heap-profile']) {
  await heapProfile({
    plan,
    chosen: only !== undefined,
    pgUrl,
    resultsDir: RESULTS,
    targets: targets ?? ['switchboard-sqlite'],
    promoted: args.promoted,
  })
  process.exit(0)
}

const started = performance.now()
const records: RunRecord[] = []
const total = plan.cases.reduce((sum, c) => sum + targetsFor(plan, c).length * plan.repeats, 0)
for (const testCase of plan.cases) {
  // Rounds outermost, targets innermost: the rows being compared run next to each other in time.
  for (let round = 1; round <= plan.repeats; round++) {
    for (const target of targetsFor(plan, testCase)) {
      const t0 = performance.now()
      const record = await measureOnce(plan, testCase, target, round, { pgUrl })
      records.push(record)
      const m = record.measurement
      const s = record.subscribers
      const what = record.failure
        ? `FAILED ${record.failure.split('\n')[0]}`
        : m
          ? `${m.opsPerSec.toFixed(0)} ops/s, ${m.cpuMsPer1k.toFixed(0)} ms CPU/1k, ${m.errors} errors`
          : `${s!.levels.map((l) => `${l.streams}: ${l.kbPerStream.toFixed(1)} KB`).join(', ')}, ${s!.errors} errors`
      process.stderr.write(
        `[${records.length}/${total}] ${testCase.scenario} ${testCase.binding} ${target} #${round}: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
      )
    }
  }
}
const seconds = (performance.now() - started) / 1000
machine.loadAfter = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')
publish(
  { command, plan, machine, date: new Date().toISOString(), seconds, notes, records },
  { results: RESULTS, ...(!args['no-readme'] && { readme: README }) },
)
