import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

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
export const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name may contain spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return ((utime + stime) * 1000) / CLK_TCK
}

/** Resident set size, in bytes. */
export const rssBytes = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  return match ? Number(match[1]) * 1024 : 0
}

/** CLOCK_MONOTONIC in microseconds: the clock of V8's CPU profiles, shared by every process. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n)
