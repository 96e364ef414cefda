import { cpuBetween, cpuMs, monotonicUs, postgresCpuMs, rssBytes } from './procfs.ts'

export interface Window {
  warmupMs: number
  measureMs: number
}

/** One measured window: what every scenario reports. */
export interface Measurement {
  /** Operations that completed, verified, inside the window. */
  ops: number
  /** Operations that failed (an error or a failed check) inside the window. */
  errors: number
  firstError?: string
  seconds: number
  opsPerSec: number
  p50Ms: number
  p99Ms: number
  /** Server CPU time in the window, and per 1,000 operations. */
  serverCpuMs: number
  cpuMsPer1k: number
  /** PostgreSQL targets: the database server's CPU per 1,000 operations (its processes for our database). */
  dbCpuMsPer1k?: number
  /** Server CPU use in the window, and the load generator's (near 100 %: the client was the limit). */
  serverCpuPct: number
  clientCpuPct: number
  /** Server RSS at the end of the window. */
  rssMb: number
  /** CLOCK_MONOTONIC µs at the window's start and end (to cut a CPU profile to it). */
  windowUs: [number, number]
  extra?: Record<string, number>
}

/** Exact percentiles over every recorded latency (nearest rank). */
export const percentile = (sorted: Float64Array, p: number): number => {
  if (sorted.length === 0) return 0
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]!
}

const MAX_OPS_PER_WORKER = 10_000_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Samples the server (and this process) at the window's edges. */
export class WindowProbe {
  readonly #pid: number
  readonly #database: string | undefined
  #db0 = new Map<number, number>()
  #cpu0 = 0
  #client0 = process.cpuUsage()
  #t0 = 0
  #us0 = 0
  #end:
    | { cpu: number; db: number | undefined; client: NodeJS.CpuUsage; t: number; us: number; rss: number }
    | undefined

  /** `database`: also read the CPU of the PostgreSQL processes serving it. */
  constructor(serverPid: number, database?: string) {
    this.#pid = serverPid
    this.#database = database
  }

  start(): void {
    if (this.#database !== undefined) this.#db0 = postgresCpuMs(this.#database)
    this.#cpu0 = cpuMs(this.#pid)
    this.#client0 = process.cpuUsage()
    this.#t0 = performance.now()
    this.#us0 = monotonicUs()
  }

  /** Ends the window: CPU, time and RSS are read now, whatever happens before `finish`. */
  stop(): void {
    this.#end ??= {
      cpu: cpuMs(this.#pid),
      db: this.#database === undefined ? undefined : cpuBetween(this.#db0, postgresCpuMs(this.#database)),
      client: process.cpuUsage(this.#client0),
      t: performance.now(),
      us: monotonicUs(),
      rss: rssBytes(this.#pid),
    }
  }

  finish(
    ops: number,
    latencies: Float64Array,
    errors: number,
    firstError?: string,
  ): Omit<Measurement, 'extra'> {
    this.stop()
    const end = this.#end!
    const serverCpuMs = end.cpu - this.#cpu0
    const seconds = (end.t - this.#t0) / 1000
    const sorted = latencies.slice().sort()
    return {
      ops,
      errors,
      ...(firstError !== undefined && { firstError }),
      seconds,
      opsPerSec: ops / seconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      serverCpuMs,
      cpuMsPer1k: ops > 0 ? (serverCpuMs * 1000) / ops : 0,
      ...(end.db !== undefined && { dbCpuMsPer1k: ops > 0 ? (end.db * 1000) / ops : 0 }),
      serverCpuPct: (serverCpuMs / (seconds * 1000)) * 100,
      clientCpuPct: ((end.client.user + end.client.system) / 1000 / (seconds * 1000)) * 100,
      rssMb: end.rss / (1024 * 1024),
      windowUs: [this.#us0, end.us],
    }
  }
}

/** A growable list of latencies in milliseconds. */
export class Latencies {
  #values = new Float64Array(4096)
  #length = 0

  push(ms: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.#length++] = ms
  }

  get length(): number {
    return this.#length
  }

  values(): Float64Array {
    return this.#values.subarray(0, this.#length)
  }
}

/**
 * Closed-loop load: `connections` workers each run `op` back to back through a warm-up and a
 * measured window. An operation counts (and its latency is recorded) when it completes inside
 * the window; one that fails there is an error. Workers start nothing after the window ends.
 */
export const runClosedLoop = async (
  options: Window & { connections: number; serverPid: number; database?: string },
  op: (worker: number) => Promise<void>,
  edges: { start?: () => void; stop?: () => void } = {},
): Promise<Omit<Measurement, 'extra'>> => {
  const probe = new WindowProbe(options.serverPid, options.database)
  const latencies = new Latencies()
  let errors = 0
  let firstError: string | undefined
  let measuring = false
  let stopped = false
  const worker = async (index: number): Promise<void> => {
    for (let n = 0; n < MAX_OPS_PER_WORKER && !stopped; n++) {
      const start = performance.now()
      try {
        await op(index)
        if (measuring) latencies.push(performance.now() - start)
      } catch (error) {
        if (!measuring) continue
        errors++
        firstError ??= (error as Error).message
      }
    }
  }
  const workers = Array.from({ length: options.connections }, (_, i) => worker(i))
  await sleep(options.warmupMs)
  probe.start()
  edges.start?.()
  measuring = true
  await sleep(options.measureMs)
  measuring = false
  edges.stop?.()
  const result = probe.finish(latencies.length, latencies.values(), errors, firstError)
  stopped = true
  await Promise.all(workers)
  return result
}
