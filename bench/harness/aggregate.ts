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
}

/** The median of the rounds, per field; errors are summed (one failure in any round is reported). */
export interface Aggregate extends Case {
  target: Target
  rounds: number
  failures: string[]
  measurement?: Measurement
  subscribers?: SubscriberResult
  /** Each round's throughput and CPU per operation, in round order: the spread of a ratio. */
  perRound?: Pick<Measurement, 'opsPerSec' | 'cpuMsPer1k'>[]
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
    return {
      scenario: first.scenario,
      binding: first.binding,
      target: first.target,
      rounds: group.length,
      failures: group.flatMap((r) => (r.failure ? [r.failure] : [])),
      ...(measurements.length > 0 && {
        measurement: withErrorsSummed(measurements),
        perRound: measurements.map(({ opsPerSec, cpuMsPer1k }) => ({ opsPerSec, cpuMsPer1k })),
      }),
      ...(subscribers.length > 0 && { subscribers: withErrorsSummed(subscribers) }),
    }
  })
}
