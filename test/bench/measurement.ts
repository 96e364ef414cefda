import type { Measurement } from '../../bench/client/load.ts'

/** One round's figures as the load generator reports them: only ops/s, CPU per op and errors vary. */
export const measurement = (opsPerSec: number, cpuMsPer1k = 500, errors = 0): Measurement => ({
  ops: opsPerSec * 3,
  errors,
  seconds: 3,
  opsPerSec,
  p50Ms: 10,
  p99Ms: 20,
  serverCpuMs: 1000,
  cpuMsPer1k,
  serverCpuPct: 90,
  clientCpuPct: 50,
  rssMb: 100,
  windowUs: [0, 3_000_000],
})
