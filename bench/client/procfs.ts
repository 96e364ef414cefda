import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat (100 on every Linux we run on; asked once). */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/**
 * CPU time (user + system) the process has used, in milliseconds: the steadiest figure on a
 * shared machine, since it does not count time spent waiting for a core.
 */
export const cpuMs = (pid: number): number => cpuOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))

const cpuOfStat = (stat: string): number => {
  // The command name may contain spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) * 1000) / CLK_TCK
}

/** A backend's title: `postgres: [cluster: ]user database host(port) state`. */
const BACKEND = /^postgres: (?:[^:]+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/

/**
 * CPU time so far (ms) of each PostgreSQL server process that works for `database`: its backends
 * and the shared processes (postmaster, WAL writer, checkpointer, background writer, autovacuum).
 * Backends of other databases are left out: other users of the same server are not our cost.
 */
export const postgresCpuMs = (database: string): Map<number, number> => {
  const cpu = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (!stat.includes(' (postgres) ')) continue
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
      const backend = BACKEND.exec(title)
      if (backend && backend[1] !== database) continue
      cpu.set(Number(entry), cpuOfStat(stat))
    } catch {
      // The process exited between the listing and the read.
    }
  }
  return cpu
}

/**
 * The CPU the processes used between two readings. A process that started in between counts
 * whole; one that exited in between is lost (backends live as long as the server's pool).
 */
export const cpuBetween = (before: Map<number, number>, after: Map<number, number>): number => {
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/** Resident set size, in bytes. */
export const rssBytes = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  return match ? Number(match[1]) * 1024 : 0
}

/** CLOCK_MONOTONIC in microseconds: the clock of V8's CPU profiles, shared by every process. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n)
