import type { Binding } from '../client/a2a.ts'
import { DURABLE_FLOOR, LABELS, PG_FLOOR, PG_STORE_FLOOR, STORE_FLOOR, type Target } from '../protocol.ts'
import { type Aggregate, type PairedRatio, pairedRatio } from './aggregate.ts'
import { BINDING_NAMES, formatNumber, formatRatio } from './format.ts'
import { floorCase, type Scenario } from './plan.ts'

/** A published figure needs this many rounds: fewer is no result. */
export const MIN_ROUNDS = 3

export type GoalStatus = 'met' | 'not met' | 'out of reach' | 'noisy' | 'too few rounds' | 'not measured'

export interface Goal {
  goal: string
  value: string
  status: GoalStatus
  /**
   * The same figure for the durable floor (node:http and one SQLite write per task, nothing
   * else), where the goal has one: a goal the floor itself misses is out of reach on this machine.
   */
  floor?: string
  /**
   * The same figure for the store floor of the row's store (node:http writing each task as our
   * SQLite or PostgreSQL store does, no A2A), beside the durable floor: what a server keeping our
   * store's guarantees could reach.
   */
  storeFloor?: string
  /**
   * For a noisy goal, what its rounds agree on, when they do: a noisy row publishes no result, but
   * every round short of the goal (or every round past it) is still something each round says.
   */
  rounds?: RoundsAgree
}

export type RoundsAgree = 'no round met it' | 'every round met it'

/** What every round says of a noisy goal, from its lowest and highest round; undefined when they split. */
const roundsAgree = (
  status: GoalStatus,
  low: number | undefined,
  high: number | undefined,
  meets: (figure: number) => boolean,
): { rounds?: RoundsAgree } => {
  if (status !== 'noisy' || low === undefined || high === undefined) return {}
  if (meets(low) && meets(high)) return { rounds: 'every round met it' }
  if (!meets(low) && !meets(high)) return { rounds: 'no round met it' }
  return {}
}

const HTTP_BINDINGS: Binding[] = ['jsonrpc', 'rest']
const OURS: Target = 'switchboard-sqlite'
const PG: Target = 'switchboard-pg'

type Find = (scenario: string, binding: string, target: Target) => Aggregate | undefined

/**
 * The status of a goal from the rows it reads, in this order: a row missing; fewer than
 * MIN_ROUNDS rounds; an error in any round (a wrong answer is never a result); a noisy row; and
 * only then whether the figure reaches the goal.
 */
export const statusOf = (rows: (Aggregate | undefined)[], reached: () => boolean): GoalStatus => {
  const present = rows.filter((row): row is Aggregate => row !== undefined)
  if (present.length < rows.length || present.some((row) => !row.measurement && !row.subscribers))
    return 'not measured'
  if (present.some((row) => row.rounds < MIN_ROUNDS)) return 'too few rounds'
  const errors = present.some(
    (row) =>
      row.failures.length > 0 || (row.measurement?.errors ?? 0) > 0 || (row.subscribers?.errors ?? 0) > 0,
  )
  if (errors) return 'not met'
  if (present.some((row) => row.noisy)) return 'noisy'
  return reached() ? 'met' : 'not met'
}

const withSpread = (ratio: PairedRatio): string =>
  ratio.rounds > 1
    ? `${formatRatio(ratio.median)} (${formatRatio(ratio.low)}–${formatRatio(ratio.high)})`
    : formatRatio(ratio.median)

/** ours ÷ theirs in throughput, at least `target`×; the figure says CPU per op too. */
const throughputGoal = (
  find: Find,
  scenario: Scenario,
  binding: Binding,
  ours: Target,
  baseline: Target,
  target: number,
): Goal => {
  // The durable floor stores in SQLite: it bounds our SQLite rows, in the rows it answers. Each
  // store has a store floor of its own.
  const answered = floorCase({ scenario, binding })
  const floored = ours === OURS && answered
  const stored = answered && (ours === OURS || ours === PG)
  const mine = find(scenario, binding, ours)
  const theirs = find(scenario, binding, baseline)
  const ops = mine && theirs ? pairedRatio(mine, theirs, 'opsPerSec') : undefined
  const bare = floored ? find(scenario, binding, DURABLE_FLOOR) : undefined
  const floorOps = bare && theirs ? pairedRatio(bare, theirs, 'opsPerSec') : undefined
  const store = stored ? find(scenario, binding, ours === PG ? PG_STORE_FLOOR : STORE_FLOOR) : undefined
  const storeOps = store && theirs ? pairedRatio(store, theirs, 'opsPerSec') : undefined
  const cpu = mine && theirs ? pairedRatio(mine, theirs, 'cpuMsPer1k') : undefined
  const db = mine?.measurement?.dbCpuMsPer1k
  const unit = scenario === 'tokens' ? 'events/s' : 'throughput'
  const status = outOfReach(
    statusOf([mine, theirs], () => ops !== undefined && ops.median >= target),
    bare && theirs && statusOf([bare, theirs], () => floorOps !== undefined && floorOps.median >= target),
  )
  return {
    goal: `${scenario} ${BINDING_NAMES[binding]}: ${LABELS[ours]} ≥ ${target}× ${LABELS[baseline]} ${unit}`,
    value: ops
      ? [
          withSpread(ops),
          `CPU per op ${cpu ? formatRatio(cpu.median) : '–'} the SDK's`,
          ...(db !== undefined ? [`database CPU ${formatNumber(db)} ms / 1k ops`] : []),
        ].join('; ')
      : '–',
    status,
    ...roundsAgree(status, ops?.low, ops?.high, (ratio) => ratio >= target),
    ...(floored && { floor: floorOps ? withSpread(floorOps) : '–' }),
    ...(stored && { storeFloor: storeOps ? withSpread(storeOps) : '–' }),
  }
}

/**
 * A goal not met whose floor, measured cleanly in the same run, misses it too: no server that
 * stores each task can meet it on this machine, whatever it cuts.
 */
const outOfReach = (status: GoalStatus, floorStatus: GoalStatus | undefined): GoalStatus =>
  status === 'not met' && floorStatus === 'not met' ? 'out of reach' : status

/** Server CPU per operation of one of our rows, at most `limit` ms per 1,000. */
const cpuGoal = (find: Find, scenario: string, binding: Binding, limit: number): Goal => {
  const mine = find(scenario, binding, OURS)
  const cpu = mine?.measurement?.cpuMsPer1k
  const rounds = (mine?.perRound ?? []).map((r) => r.cpuMsPer1k)
  const bare = find(scenario, binding, DURABLE_FLOOR)
  const floorCpu = bare?.measurement?.cpuMsPer1k
  const storeCpu = find(scenario, binding, STORE_FLOOR)?.measurement?.cpuMsPer1k
  const status = outOfReach(
    statusOf([mine], () => cpu !== undefined && cpu <= limit),
    bare && statusOf([bare], () => floorCpu !== undefined && floorCpu <= limit),
  )
  const [low, high] = rounds.length > 0 ? [Math.min(...rounds), Math.max(...rounds)] : []
  return {
    goal: `${scenario} ${BINDING_NAMES[binding]}: ${LABELS[OURS]} server CPU ≤ ${limit} ms per 1,000`,
    value:
      cpu === undefined
        ? '–'
        : `${formatNumber(cpu)} ms${rounds.length > 1 ? ` (${formatNumber(low!)}–${formatNumber(high!)})` : ''}`,
    status,
    ...roundsAgree(status, low, high, (ms) => ms <= limit),
    floor: floorCpu === undefined ? '–' : `${formatNumber(floorCpu)} ms`,
    storeFloor: storeCpu === undefined ? '–' : `${formatNumber(storeCpu)} ms`,
  }
}

/** `target`'s database CPU per operation over the anchor lifecycle's, paired round by round, with both figures. */
const databaseRatio = (find: Find, scenario: Scenario, binding: Binding, target: Target) => {
  const mine = find(scenario, binding, target)
  const anchor = find(scenario, binding, PG_FLOOR)
  const ratio = mine && anchor ? pairedRatio(mine, anchor, 'dbCpuMsPer1k') : undefined
  const ours = mine?.measurement?.dbCpuMsPer1k
  const theirs = anchor?.measurement?.dbCpuMsPer1k
  const text =
    ratio && ours !== undefined && theirs !== undefined
      ? `${withSpread(ratio)}: ${formatNumber(ours)} vs ${formatNumber(theirs)} ms / 1k ops`
      : '–'
  return { mine, anchor, ratio, text }
}

/**
 * Switchboard PostgreSQL's database CPU per operation, at most `factor`× the anchor lifecycle's
 * (PG_FLOOR) in the same rounds: what the database spends for us beyond one task's least writes.
 * Beside it, the PostgreSQL store floor's: how much of that our store's writes alone cost.
 */
const databaseGoal = (find: Find, scenario: Scenario, binding: Binding, factor: number): Goal => {
  const { mine, anchor, ratio, text } = databaseRatio(find, scenario, binding, PG)
  const status = statusOf([mine, anchor], () => ratio !== undefined && ratio.median <= factor)
  return {
    goal: `${scenario} ${BINDING_NAMES[binding]}: ${LABELS[PG]} database CPU ≤ ${factor}× the anchor lifecycle's`,
    value: text,
    status,
    ...roundsAgree(status, ratio?.low, ratio?.high, (r) => r <= factor),
    storeFloor: databaseRatio(find, scenario, binding, PG_STORE_FLOOR).text,
  }
}

/** Memory per open stream at the most streams, within `slackKb` of the bare node:http floor. */
const memoryGoal = (find: Find, binding: Binding, slackKb: number): Goal => {
  const mine = find('subscribers', binding, OURS)
  const floor = find('subscribers', binding, 'http-floor')
  const ours = mine?.subscribers?.levels.at(-1)
  const bare = floor?.subscribers?.levels.at(-1)
  const above = ours && bare ? ours.kbPerStream - bare.kbPerStream : undefined
  return {
    goal: `memory per open stream (${BINDING_NAMES[binding]}): ${LABELS[OURS]} within ${slackKb} KB of the node:http floor`,
    value:
      ours && bare && above !== undefined
        ? `${formatNumber(ours.kbPerStream, 1)} vs ${formatNumber(bare.kbPerStream, 1)} KB at ${formatNumber(ours.streams)} streams: ${above >= 0 ? '+' : ''}${formatNumber(above, 1)} KB`
        : '–',
    status: statusOf([mine, floor], () => above !== undefined && above <= slackKb),
  }
}

/** The goals of issue 19, each judged from this run (see bench/README.md, "The goals table"). */
export const judgeGoals = (results: Aggregate[]): Goal[] => {
  const find: Find = (scenario, binding, target) =>
    results.find((r) => r.scenario === scenario && r.binding === binding && r.target === target)
  const goals: Goal[] = []
  for (const scenario of ['send', 'send-async', 'stream'] as const) {
    for (const binding of HTTP_BINDINGS) {
      goals.push(throughputGoal(find, scenario, binding, OURS, 'sdk-memory', 3))
      goals.push(throughputGoal(find, scenario, binding, OURS, 'sdk-sqlite', 10))
    }
  }
  for (const binding of HTTP_BINDINGS) goals.push(cpuGoal(find, 'send', binding, 300))
  for (const scenario of ['send', 'stream'] as const) {
    for (const binding of HTTP_BINDINGS)
      goals.push(throughputGoal(find, scenario, binding, PG, 'sdk-sqlite', 3))
  }
  for (const scenario of ['send', 'stream'] as const) {
    for (const binding of HTTP_BINDINGS) goals.push(databaseGoal(find, scenario, binding, 1.5))
  }
  for (const binding of HTTP_BINDINGS) goals.push(memoryGoal(find, binding, 2))
  for (const binding of HTTP_BINDINGS)
    goals.push(throughputGoal(find, 'tokens', binding, OURS, 'sdk-memory', 3))
  return goals
}

export const renderGoals = (goals: Goal[]): string =>
  [
    '| goal | this run (median of the rounds; lowest–highest round) | the durable floor, the same figure | the store floor (SQLite or PostgreSQL, as the row), the same figure | met |',
    '| --- | --- | --- | --- | :---: |',
    ...goals.map(
      (g) =>
        `| ${g.goal} | ${g.value} | ${g.floor ?? ''} | ${g.storeFloor ?? ''} | ${g.status === 'met' ? 'met' : `**${g.status}**`}${g.rounds ? `: ${g.rounds}` : ''} |`,
    ),
  ].join('\n')
