import type { Measurement } from '../client/load.ts'
import type { SubscriberResult } from '../client/subscribers.ts'
import type { Target } from '../protocol.ts'
import type { Case } from './plan.ts'

/** One server run: one scenario, one binding, one target, one round. */
export interface RunRecord extends Case {
  target: Target
  round: number
  measurement?: Measurement
  subscribers?: SubscriberResult
  /** The run could not be completed (server or load generator failed). */
  failure?: string
  /** The machine's 1-minute load average when the round ended. */
  load?: number
}

/** Rounds of one row whose spread is above this are noisy: their median is no result. */
export const NOISE_LIMIT = 0.25

/** The median of the rounds, per field; errors are summed (one failure in any round is reported). */
export interface Aggregate extends Case {
  target: Target
  rounds: number
  failures: string[]
  measurement?: Measurement
  subscribers?: SubscriberResult
  /** Each round's throughput and CPU per operation, in round order: the spread of a ratio. */
  perRound?: ({ round: number } & Pick<Measurement, 'opsPerSec' | 'cpuMsPer1k' | 'dbCpuMsPer1k'>)[]
  /**
   * How far the rounds disagree: (max − min) / median of the row's figure (ops/s; KB per stream
   * at the most streams for the subscriber scenario). 0 for one round.
   */
  spread: number
  /** More than NOISE_LIMIT: the row is reported, but judges no goal. */
  noisy: boolean
  /** The lowest and highest 1-minute load average of the rounds. */
  load?: [number, number]
}

export const median = (values: number[]): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const medianOf = <T extends object>(items: T[]): T => {
  const first = items[0]!
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === 'number') {
      out[key] = median(items.map((item) => (item as Record<string, number>)[key] ?? 0))
    } else if (Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null)) {
      out[key] = value.map((_, i) =>
        medianOf(items.map((item) => (item as Record<string, object[]>)[key]![i]!)),
      )
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = medianOf(items.map((item) => (item as Record<string, object>)[key]!))
    } else {
      out[key] = value
    }
  }
  return out as T
}

const withErrorsSummed = <T extends { errors: number; firstError?: string }>(items: T[]): T => {
  const merged = medianOf(items)
  merged.errors = items.reduce((n, item) => n + item.errors, 0)
  const firstError = items.find((item) => item.firstError)?.firstError
  if (firstError !== undefined) merged.firstError = firstError
  else delete merged.firstError
  return merged
}

/** (max − min) / median: 0 for fewer than two values. */
export const spreadOf = (values: number[]): number => {
  if (values.length < 2) return 0
  const middle = median(values)
  const range = Math.max(...values) - Math.min(...values)
  return middle > 0 ? range / middle : range > 0 ? Number.POSITIVE_INFINITY : 0
}

/** The figure whose rounds must agree: throughput, or memory per stream at the most streams. */
const headlineOf = (record: RunRecord): number | undefined =>
  record.measurement?.opsPerSec ?? record.subscribers?.levels.at(-1)?.kbPerStream

export interface PairedRatio {
  median: number
  low: number
  high: number
  rounds: number
}

/**
 * ours ÷ theirs of a figure, round by round (the rounds of two rows run next to each other), then
 * the median of those ratios, with the lowest and highest: what a published ratio is.
 */
export const pairedRatio = (
  ours: Aggregate,
  theirs: Aggregate,
  figure: 'opsPerSec' | 'cpuMsPer1k' | 'dbCpuMsPer1k',
): PairedRatio | undefined => {
  const ratios = (ours.perRound ?? []).flatMap((round) => {
    const base = theirs.perRound?.find((r) => r.round === round.round)
    const mine = round[figure]
    const other = base?.[figure]
    return mine !== undefined && other !== undefined && other > 0 ? [mine / other] : []
  })
  if (ratios.length === 0) return undefined
  return {
    median: median(ratios),
    low: Math.min(...ratios),
    high: Math.max(...ratios),
    rounds: ratios.length,
  }
}

export const aggregate = (records: RunRecord[]): Aggregate[] => {
  const groups = new Map<string, RunRecord[]>()
  for (const record of records) {
    const key = `${record.scenario}|${record.binding}|${record.target}`
    groups.set(key, [...(groups.get(key) ?? []), record])
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!
    const measurements = group.flatMap((r) => (r.measurement ? [r.measurement] : []))
    const subscribers = group.flatMap((r) => (r.subscribers ? [r.subscribers] : []))
    const spread = spreadOf(group.flatMap((r) => headlineOf(r) ?? []))
    const loads = group.flatMap((r) => (r.load === undefined ? [] : [r.load]))
    return {
      scenario: first.scenario,
      binding: first.binding,
      target: first.target,
      rounds: group.length,
      failures: group.flatMap((r) => (r.failure ? [r.failure] : [])),
      ...(measurements.length > 0 && {
        measurement: withErrorsSummed(measurements),
        perRound: group.flatMap(({ round, measurement: m }) =>
          m
            ? [
                {
                  round,
                  opsPerSec: m.opsPerSec,
                  cpuMsPer1k: m.cpuMsPer1k,
                  ...(m.dbCpuMsPer1k !== undefined && { dbCpuMsPer1k: m.dbCpuMsPer1k }),
                },
              ]
            : [],
        ),
      }),
      ...(subscribers.length > 0 && { subscribers: withErrorsSummed(subscribers) }),
      spread,
      noisy: spread > NOISE_LIMIT,
      ...(loads.length > 0 && { load: [Math.min(...loads), Math.max(...loads)] as [number, number] }),
    }
  })
}

/** The lowest, median and highest of the rounds' load averages: the machine over the run. */
export const loadOfRun = (results: Aggregate[]): [number, number, number] | undefined => {
  const loads = results.flatMap((r) => r.load ?? [])
  if (loads.length === 0) return undefined
  return [Math.min(...loads), median(loads), Math.max(...loads)]
}
