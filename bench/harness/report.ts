import type { Measurement } from '../client/load.ts'
import { LABELS, type Target, TRACED } from '../protocol.ts'
import { type Aggregate, median } from './aggregate.ts'
import type { Case, Plan } from './plan.ts'

export interface Machine {
  nproc: number
  cpu: string
  node: string
  pinned: boolean
  loadBefore: string
  loadAfter: string
}

export interface Goal {
  goal: string
  value: string
  met: boolean | undefined
}

const BASELINES: Target[] = ['sdk-memory', 'sdk-sqlite']
const OURS: Target = 'switchboard-sqlite'

const DESCRIPTION: Record<string, string> = {
  send: 'blocking SendMessage; the task goes WORKING, emits 1 artifact, COMPLETED',
  'send-async':
    'SendMessage returnImmediately, then GetTask back to back until terminal (one op = the whole flow)',
  get: 'GetTask of completed tasks',
  stream: 'SendStreamingMessage, 10 artifact updates, read to COMPLETED',
  push: "closed loop: blocking SendMessage with an inline push config, then wait for the task's terminal webhook; rate = webhooks received; latency = send → terminal webhook; CPU per 1k webhooks",
  clawpedia: 'Clawpedia POST /tasks, then GET /tasks/{id}/stream to COMPLETED',
  subscribers: 'SubscribeToTask streams on 50 long-running tasks; memory = (RSS − RSS before) / streams',
}

const BINDING: Record<Case['binding'], string> = {
  jsonrpc: 'JSON-RPC',
  rest: 'HTTP+JSON',
  grpc: 'gRPC',
  clawpedia: 'Clawpedia REST',
}

const n = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–'

const ratio = (value: number): string =>
  Number.isFinite(value) && value > 0 ? `${n(value, value < 10 ? 2 : 1)}×` : '–'

const errorsOf = (row: Aggregate): string => {
  const errors = (row.measurement?.errors ?? row.subscribers?.errors ?? 0) + row.failures.length
  return errors === 0 ? '0' : `**${errors}**`
}

const loadRow = (row: Aggregate, m: Measurement): string => {
  const client = m.clientCpuPct > 90 ? ' (client-bound)' : ''
  return `| ${LABELS[row.target]} | ${n(m.opsPerSec)}${client} | ${n(m.p50Ms, 1)} | ${n(m.p99Ms, 1)} | ${n(m.cpuMsPer1k)} | ${n(m.serverCpuPct)} | ${n(m.rssMb)} | ${errorsOf(row)} |`
}

const ratioRows = (rows: Aggregate[]): string[] => {
  const ours = rows.find((r) => r.target === OURS)?.measurement
  if (!ours) return []
  return BASELINES.flatMap((baseline) => {
    const theirs = rows.find((r) => r.target === baseline)?.measurement
    if (!theirs) return []
    return [
      `| **${LABELS[OURS]} ÷ ${LABELS[baseline]}** | **${ratio(ours.opsPerSec / theirs.opsPerSec)}** | ${ratio(ours.p50Ms / theirs.p50Ms)} | ${ratio(ours.p99Ms / theirs.p99Ms)} | ${ratio(ours.cpuMsPer1k / theirs.cpuMsPer1k)} | | ${ratio(ours.rssMb / theirs.rssMb)} | |`,
    ]
  })
}

/** A median ratio with the lowest and highest of the rounds' own ratios (paired by round): its noise. */
const ratioWithSpread = (ratios: number[]): string => {
  if (ratios.length === 0) return '–'
  const low = Math.min(...ratios)
  const high = Math.max(...ratios)
  return ratios.length === 1 ? ratio(ratios[0]!) : `${ratio(median(ratios))} (${ratio(low)}–${ratio(high)})`
}

/**
 * Tracing on ÷ off, round by round (the two run next to each other in each round): throughput and
 * CPU per operation, each with its spread over the rounds, and the medians' latency ratios.
 */
const tracingRows = (rows: Aggregate[]): string[] => {
  const off = rows.find((r) => r.target === OURS)
  const on = rows.find((r) => r.target === TRACED)
  if (!off?.measurement || !on?.measurement || !off.perRound || !on.perRound) return []
  const pairs = on.perRound.flatMap((round, i) => {
    const base = off.perRound![i]
    return base ? [{ ops: round.opsPerSec / base.opsPerSec, cpu: round.cpuMsPer1k / base.cpuMsPer1k }] : []
  })
  return [
    `| **tracing on ÷ off** | **${ratioWithSpread(pairs.map((p) => p.ops))}** | ${ratio(on.measurement.p50Ms / off.measurement.p50Ms)} | ${ratio(on.measurement.p99Ms / off.measurement.p99Ms)} | ${ratioWithSpread(pairs.map((p) => p.cpu))} | | ${ratio(on.measurement.rssMb / off.measurement.rssMb)} | |`,
  ]
}

const loadTable = (testCase: Case, rows: Aggregate[]): string => {
  const unit = testCase.scenario === 'push' ? 'webhooks/s' : 'ops/s'
  const lines = [
    `| target | ${unit} | p50 ms | p99 ms | server CPU ms / 1k ops | server CPU % | RSS MB | errors |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    if (row.measurement) lines.push(loadRow(row, row.measurement))
    else
      lines.push(
        `| ${LABELS[row.target]} | failed: ${row.failures[0]?.split('\n')[0] ?? '?'} | | | | | | ${errorsOf(row)} |`,
      )
  }
  lines.push(...ratioRows(rows), ...tracingRows(rows))
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

const subscriberTable = (rows: Aggregate[]): string => {
  const lines = [
    '| target | streams | RSS before MB | RSS MB | KB / stream | opens/s | server CPU ms / 1k opens | closed on cancel | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const s = row.subscribers
    if (!s) {
      lines.push(
        `| ${LABELS[row.target]} | failed: ${row.failures[0]?.split('\n')[0] ?? '?'} | | | | | | | ${errorsOf(row)} |`,
      )
      continue
    }
    for (const level of s.levels) {
      lines.push(
        `| ${LABELS[row.target]} | ${n(level.streams)} | ${n(s.baselineRssMb)} | ${n(level.rssMb)} | ${n(level.kbPerStream, 1)} | ${n(s.opensPerSec)} | ${n(s.cpuMsPer1kOpens)} | ${n(s.closedOk)} | ${errorsOf(row)} |`,
      )
    }
  }
  const ours = rows.find((r) => r.target === OURS)?.subscribers
  for (const baseline of BASELINES) {
    const theirs = rows.find((r) => r.target === baseline)?.subscribers
    if (!ours || !theirs) continue
    ours.levels.forEach((level, i) => {
      const other = theirs.levels[i]
      if (!other) return
      lines.push(
        `| **${LABELS[OURS]} ÷ ${LABELS[baseline]}** | ${n(level.streams)} | | | **${ratio(level.kbPerStream / other.kbPerStream)}** | ${ratio(ours.opensPerSec / theirs.opensPerSec)} | ${ratio(ours.cpuMsPer1kOpens / theirs.cpuMsPer1kOpens)} | | |`,
      )
    })
  }
  const notes = rows.flatMap((row) => {
    const first = row.subscribers?.firstError ?? row.failures[0]
    return first ? [`- ${LABELS[row.target]} first error: ${first.split('\n')[0]!.slice(0, 200)}`] : []
  })
  return [...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n')
}

export const renderTables = (plan: Plan, results: Aggregate[]): string => {
  const sections: string[] = []
  for (const testCase of plan.cases) {
    const rows = results.filter((r) => r.scenario === testCase.scenario && r.binding === testCase.binding)
    if (rows.length === 0) continue
    const title = `### ${testCase.scenario} — ${BINDING[testCase.binding]}`
    const body = testCase.scenario === 'subscribers' ? subscriberTable(rows) : loadTable(testCase, rows)
    sections.push(`${title}\n\n${DESCRIPTION[testCase.scenario]}.\n\n${body}`)
  }
  return sections.join('\n\n')
}

/** The goals, judged from this run's ratios. */
export const judgeGoals = (results: Aggregate[]): Goal[] => {
  const goals: Goal[] = []
  const find = (scenario: string, binding: string, target: Target) =>
    results.find((r) => r.scenario === scenario && r.binding === binding && r.target === target)
  for (const scenario of ['send', 'get', 'stream']) {
    for (const binding of ['jsonrpc', 'rest']) {
      const ours = find(scenario, binding, OURS)?.measurement
      for (const [baseline, target] of [
        ['sdk-memory', 3],
        ['sdk-sqlite', 10],
      ] as const) {
        const theirs = find(scenario, binding, baseline)?.measurement
        if (!ours || !theirs) continue
        const value = ours.opsPerSec / theirs.opsPerSec
        const clean = ours.errors === 0 && theirs.errors === 0
        goals.push({
          goal: `${scenario} ${BINDING[binding as Case['binding']]}: ≥ ${target}× ${LABELS[baseline]} throughput`,
          value: `${ratio(value)} (CPU per op: ${ratio(ours.cpuMsPer1k / theirs.cpuMsPer1k)} the SDK's)`,
          met: clean && value >= target,
        })
      }
    }
  }
  for (const binding of ['jsonrpc', 'rest']) {
    const ours = find('subscribers', binding, OURS)?.subscribers
    for (const baseline of BASELINES) {
      const theirs = find('subscribers', binding, baseline)?.subscribers
      if (!ours || !theirs) continue
      const last = ours.levels.length - 1
      const value = ours.levels[last]!.kbPerStream / theirs.levels[last]!.kbPerStream
      goals.push({
        goal: `memory per stream (${BINDING[binding as Case['binding']]}, ${n(ours.levels[last]!.streams)} streams) ≤ ¼ of ${LABELS[baseline]}`,
        value: `${n(ours.levels[last]!.kbPerStream, 1)} vs ${n(theirs.levels[last]!.kbPerStream, 1)} KB = ${ratio(value)}`,
        met: value <= 0.25,
      })
    }
    if (ours) {
      const held = ours.levels.at(-1)!.streams
      goals.push({
        goal: `10,000 concurrent streams held by one process (${BINDING[binding as Case['binding']]})`,
        value: `${n(held)} held, ${n(ours.closedOk)} closed on cancel, ${ours.errors} errors`,
        met: held >= 10_000 ? ours.errors === 0 && ours.closedOk >= 10_000 : undefined,
      })
    }
  }
  return goals
}

export const renderGoals = (goals: Goal[]): string =>
  [
    '| goal | this run | met |',
    '| --- | --- | :---: |',
    ...goals.map(
      (g) =>
        `| ${g.goal} | ${g.value} | ${g.met === undefined ? 'not measured' : g.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n')

export const renderHeader = (options: {
  plan: Plan
  machine: Machine
  command: string
  date: string
  seconds: number
  notes: string[]
}): string => {
  const { plan, machine } = options
  return [
    `Command: \`${options.command}\` (${plan.mode} mode: ${plan.repeats} round${plan.repeats > 1 ? 's' : ''} per row, median shown; ${plan.warmupMs / 1000} s warm-up, ${plan.measureMs / 1000} s measured; ${plan.connections} connections).`,
    `Took ${n(options.seconds)} s; finished ${options.date.slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    `Machine: ${machine.nproc} cores, ${machine.cpu}, Node ${machine.node}; ${machine.pinned ? 'server pinned to core 0, load generator to core 1 (taskset)' : 'not pinned (no taskset)'}; load average before ${machine.loadBefore}, after ${machine.loadAfter}.`,
    ...options.notes.map((note) => `\n${note}`),
  ].join('\n')
}
