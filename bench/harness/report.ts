import type { Measurement } from '../client/load.ts'
import {
  DURABLE_FLOOR,
  FASTIFY_STORE_FLOOR,
  FLOOR,
  LABELS,
  PG_STORE_FLOOR,
  STORE_FLOOR,
  STREAM_ARTIFACTS,
  type Target,
  TRACED,
} from '../protocol.ts'
import { type Aggregate, loadOfRun, NOISE_LIMIT, pairedRatio } from './aggregate.ts'
import { BINDING_NAMES, formatNumber, formatRatio } from './format.ts'
import { MIN_ROUNDS } from './goals.ts'
import type { Case, Pinning, Plan } from './plan.ts'

export interface Machine {
  nproc: number
  cpu: string
  node: string
  loadBefore: string
  loadAfter: string
}

const PINNING_TEXT: Record<Pinning, string> = {
  split: 'server pinned to core 0, load generator to core 1 (taskset)',
  client: 'load generator pinned to core 1 (taskset), the server and PostgreSQL unpinned',
  none: 'nothing pinned',
}

const BASELINES: Target[] = ['sdk-memory', 'sdk-sqlite']
const OURS: Target = 'switchboard-sqlite'

const DESCRIPTION: Record<string, string> = {
  send: 'blocking SendMessage; the task goes WORKING, emits 1 artifact, COMPLETED',
  'send-async':
    'SendMessage returnImmediately, then GetTask back to back until terminal (one op = the whole flow)',
  get: 'GetTask of completed tasks',
  tokens:
    'SendStreamingMessage of one artifact streamed in 200 appended pieces, read to COMPLETED; eventsPerSec = pieces per second (200 per operation)',
  push: "closed loop: blocking SendMessage with an inline push config, then wait for the task's terminal webhook; rate = webhooks received; latency = send → terminal webhook; CPU per 1k webhooks",
  clawpedia: 'Clawpedia POST /tasks, then GET /tasks/{id}/stream to COMPLETED',
  subscribers:
    'SubscribeToTask streams on 50 long-running tasks; memory = (held − held before) / streams, held being the RSS after a full collection less the young generation’s resident pages (empty after it); in runs up to the one of 2026-12-06 08:16 the memory was RSS alone, young generation included',
}

const n = formatNumber
const ratio = formatRatio

const errorsOf = (row: Aggregate): string => {
  const errors = (row.measurement?.errors ?? row.subscribers?.errors ?? 0) + row.failures.length
  return errors === 0 ? '0' : `**${errors}**`
}

/** The rounds' spread, marked when the row is noisy (its median judges no goal). */
const spreadCell = (row: Aggregate): string => {
  if (row.rounds < 2) return '–'
  const pct = Number.isFinite(row.spread) ? `${n(row.spread * 100)} %` : '∞'
  return row.noisy ? `**${pct} noisy**` : pct
}

const loadCell = (row: Aggregate): string =>
  row.load
    ? row.load[0] === row.load[1]
      ? n(row.load[0], 1)
      : `${n(row.load[0], 1)}–${n(row.load[1], 1)}`
    : '–'

const loadRow = (row: Aggregate, m: Measurement): string => {
  const client = m.clientCpuPct > 90 ? ' (client-bound)' : ''
  const db = m.dbCpuMsPer1k === undefined ? '' : n(m.dbCpuMsPer1k)
  return `| ${LABELS[row.target]} | ${n(m.opsPerSec)}${client} | ${spreadCell(row)} | ${n(m.p50Ms, 1)} | ${n(m.p99Ms, 1)} | ${n(m.cpuMsPer1k)} | ${db} | ${n(m.serverCpuPct)} | ${n(m.rssMb)} | ${loadCell(row)} | ${errorsOf(row)} |`
}

/** A ratio of rounds paired by round: the median, with the lowest and highest round (its noise). */
const pairedCell = (ours: Aggregate, theirs: Aggregate, figure: 'opsPerSec' | 'cpuMsPer1k'): string => {
  const paired = pairedRatio(ours, theirs, figure)
  if (!paired) return '–'
  return paired.rounds === 1
    ? ratio(paired.median)
    : `${ratio(paired.median)} (${ratio(paired.low)}–${ratio(paired.high)})`
}

/**
 * The ratios the goals read: ours ÷ each SDK target, PostgreSQL ÷ the SDK on SQLite, tracing on ÷
 * off; the durable floor ÷ each SDK target (how far any storing server could go) and ours ÷
 * that floor (how much of it we reach); the store floor ÷ each SDK target (how far a server with
 * our store's guarantees could go) and ours ÷ that floor (what the protocol work costs us); the
 * fastify store floor against the SDK, the store floor and ours (the framework's part of that
 * work); the same first two for the PostgreSQL store floor.
 */
const RATIOS: [Target, Target, string?][] = [
  [OURS, 'sdk-memory'],
  [OURS, 'sdk-sqlite'],
  ['switchboard-pg', 'sdk-sqlite'],
  [TRACED, OURS, 'tracing on ÷ off'],
  [DURABLE_FLOOR, 'sdk-memory', 'durable floor ÷ SDK in-memory'],
  [DURABLE_FLOOR, 'sdk-sqlite', 'durable floor ÷ SDK SQLite'],
  [OURS, DURABLE_FLOOR, 'Switchboard SQLite ÷ durable floor'],
  [STORE_FLOOR, 'sdk-memory', 'store floor ÷ SDK in-memory'],
  [STORE_FLOOR, 'sdk-sqlite', 'store floor ÷ SDK SQLite'],
  [OURS, STORE_FLOOR, 'Switchboard SQLite ÷ store floor'],
  [FASTIFY_STORE_FLOOR, 'sdk-memory', 'fastify store floor ÷ SDK in-memory'],
  [FASTIFY_STORE_FLOOR, STORE_FLOOR, 'fastify store floor ÷ store floor'],
  [OURS, FASTIFY_STORE_FLOOR, 'Switchboard SQLite ÷ fastify store floor'],
  [PG_STORE_FLOOR, 'sdk-sqlite', 'PostgreSQL store floor ÷ SDK SQLite'],
  ['switchboard-pg', PG_STORE_FLOOR, 'Switchboard PostgreSQL ÷ PostgreSQL store floor'],
]

const ratioRows = (rows: Aggregate[]): string[] =>
  RATIOS.flatMap(([mine, baseline, label]) => {
    const ours = rows.find((r) => r.target === mine)
    const theirs = rows.find((r) => r.target === baseline)
    if (!ours?.measurement || !theirs?.measurement) return []
    const a = ours.measurement
    const b = theirs.measurement
    const name = label ?? `${LABELS[mine]} ÷ ${LABELS[baseline]}`
    return [
      `| **${name}** | **${pairedCell(ours, theirs, 'opsPerSec')}** | | ${ratio(a.p50Ms / b.p50Ms)} | ${ratio(a.p99Ms / b.p99Ms)} | ${pairedCell(ours, theirs, 'cpuMsPer1k')} | | | ${ratio(a.rssMb / b.rssMb)} | | |`,
    ]
  })

const loadTable = (testCase: Case, rows: Aggregate[]): string => {
  const unit = testCase.scenario === 'push' ? 'webhooks/s' : 'ops/s'
  const lines = [
    `| target | ${unit} | rounds' spread | p50 ms | p99 ms | server CPU ms / 1k ops | database CPU ms / 1k ops | server CPU % | RSS MB | load | errors |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    if (row.measurement) lines.push(loadRow(row, row.measurement))
    else
      lines.push(
        `| ${LABELS[row.target]} | failed: ${row.failures[0]?.split('\n')[0] ?? '?'} | | | | | | | | ${loadCell(row)} | ${errorsOf(row)} |`,
      )
  }
  lines.push(...ratioRows(rows))
  const notes = rows.flatMap((row) => {
    const m = row.measurement
    const extras = m?.extra
      ? Object.entries(m.extra)
          .map(([k, v]) => `${k} ${n(v, 1)}`)
          .join(', ')
      : ''
    const first = m?.firstError ?? row.failures[0]
    return [
      ...(extras ? [`${LABELS[row.target]}: ${extras}`] : []),
      ...(first ? [`${LABELS[row.target]} first error: ${first.split('\n')[0]!.slice(0, 200)}`] : []),
    ]
  })
  return [...lines, ...(notes.length > 0 ? ['', ...notes.map((note) => `- ${note}`)] : [])].join('\n')
}

/** A run before the young generation was read has no figure for it. */
const youngCell = (before: number | undefined, now: number | undefined): string =>
  before === undefined || now === undefined ? '' : `${n(before)} → ${n(now)}`

const subscriberTable = (rows: Aggregate[]): string => {
  const lines = [
    "| target | streams | RSS before MB | RSS MB | young generation MB, before → now | KB / stream | rounds' spread | opens/s | server CPU ms / 1k opens | closed on cancel | load | errors |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const s = row.subscribers
    if (!s) {
      lines.push(
        `| ${LABELS[row.target]} | failed: ${row.failures[0]?.split('\n')[0] ?? '?'} | | | | | | | | | ${loadCell(row)} | ${errorsOf(row)} |`,
      )
      continue
    }
    for (const level of s.levels) {
      lines.push(
        `| ${LABELS[row.target]} | ${n(level.streams)} | ${n(s.baselineRssMb)} | ${n(level.rssMb)} | ${youngCell(s.baselineYoungMb, level.youngMb)} | ${n(level.kbPerStream, 1)} | ${level === s.levels.at(-1) ? spreadCell(row) : ''} | ${n(s.opensPerSec)} | ${n(s.cpuMsPer1kOpens)} | ${n(s.closedOk)} | ${loadCell(row)} | ${errorsOf(row)} |`,
      )
    }
  }
  const ours = rows.find((r) => r.target === OURS)?.subscribers
  const floor = rows.find((r) => r.target === FLOOR)?.subscribers
  ours?.levels.forEach((level, i) => {
    const bare = floor?.levels[i]
    if (!bare) return
    const above = level.kbPerStream - bare.kbPerStream
    lines.push(
      `| **${LABELS[OURS]} − ${LABELS[FLOOR]}** | ${n(level.streams)} | | | | **${above >= 0 ? '+' : ''}${n(above, 1)} KB** | | | | | | |`,
    )
  })
  for (const baseline of BASELINES) {
    const theirs = rows.find((r) => r.target === baseline)?.subscribers
    if (!ours || !theirs) continue
    ours.levels.forEach((level, i) => {
      const other = theirs.levels[i]
      if (!other) return
      lines.push(
        `| **${LABELS[OURS]} ÷ ${LABELS[baseline]}** | ${n(level.streams)} | | | | **${ratio(level.kbPerStream / other.kbPerStream)}** | | ${ratio(ours.opensPerSec / theirs.opensPerSec)} | ${ratio(ours.cpuMsPer1kOpens / theirs.cpuMsPer1kOpens)} | | | |`,
      )
    })
  }
  const notes = rows.flatMap((row) => {
    const first = row.subscribers?.firstError ?? row.failures[0]
    return first ? [`- ${LABELS[row.target]} first error: ${first.split('\n')[0]!.slice(0, 200)}`] : []
  })
  return [...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')
}

/** What a scenario's table measures. A run recorded before `streamArtifacts` streamed the default. */
export const scenarioDescription = (scenario: string, plan: Pick<Plan, 'streamArtifacts'>): string =>
  scenario === 'stream'
    ? `SendStreamingMessage, ${plan.streamArtifacts ?? STREAM_ARTIFACTS} artifact updates, read to COMPLETED`
    : (DESCRIPTION[scenario] ?? scenario)

export const renderTables = (plan: Plan, results: Aggregate[]): string => {
  const sections: string[] = []
  for (const testCase of plan.cases) {
    const rows = results.filter((r) => r.scenario === testCase.scenario && r.binding === testCase.binding)
    if (rows.length === 0) continue
    const title = `### ${testCase.scenario} — ${BINDING_NAMES[testCase.binding]}`
    const body = testCase.scenario === 'subscribers' ? subscriberTable(rows) : loadTable(testCase, rows)
    sections.push(`${title}\n\n${scenarioDescription(testCase.scenario, plan)}.\n\n${body}`)
  }
  return sections.join('\n\n')
}

export const renderHeader = (options: {
  plan: Plan
  machine: Machine
  command: string
  date: string
  seconds: number
  notes: string[]
  results: Aggregate[]
}): string => {
  const { plan, machine } = options
  const load = loadOfRun(options.results)
  return [
    `Command: \`${options.command}\` (${plan.mode} mode: ${plan.repeats} round${plan.repeats > 1 ? 's' : ''} per row, median shown; ${plan.warmupMs / 1000} s warm-up, ${plan.measureMs / 1000} s measured; ${plan.connections} connections).`,
    `Took ${n(options.seconds)} s; finished ${options.date.slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    `Machine: ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}; ${PINNING_TEXT[plan.pinning]}; load average before ${machine.loadBefore}, after ${machine.loadAfter}${load ? `; at the end of each round ${n(load[0], 1)} to ${n(load[2], 1)} (median ${n(load[1], 1)})` : ''}.`,
    '',
    `Every ratio is the median of the rounds' own ratios (each round of one row runs next to the same round of the others), with the lowest and highest round in brackets. A row's spread is (max − min) / median of its rounds' ops/s (KB per stream at the most streams for held streams); above ${n(NOISE_LIMIT * 100)} % the row is **noisy** and the goals it is read for say so instead of met or not, adding what the rounds agree on when each round, paired with the same round of the other row, falls short of the goal (no round met it) or reaches it (every round met it); a goal needs ${MIN_ROUNDS} rounds. A goal is **out of reach** when it is not met and the durable floor (${LABELS[DURABLE_FLOOR]}: bench/servers/floor.ts), measured cleanly in the same run, misses it too.`,
    ...options.notes.map((note) => `\n${note}`),
  ].join('\n')
}
