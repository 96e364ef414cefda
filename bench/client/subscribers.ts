import { readFileSync } from 'node:fs'
import type { MemoryReading } from '../protocol.ts'
import { A2aClient, type Binding, type StreamItem } from './a2a.ts'
import { Http } from './http.ts'
import { cpuMs, rssBytes } from './procfs.ts'
import { CANCELED, checkAccepted, isTerminalState } from './verify.ts'

export interface SubscriberSpec {
  base: string
  binding: Binding
  serverPid: number
  /** Where the server writes its MemoryReading after each requested collection (ReadyLine). */
  memoryFile: string
  /** Held (long-running) tasks the streams are spread over. */
  tasks: number
  /** Stream counts to reach, in order (e.g. 1,000 then 10,000); memory is read at each. */
  levels: number[]
  /** Streams opened at once while ramping up (the listen backlog is finite). */
  batch: number
  /** Time left for the server to settle before each memory reading. */
  settleMs: number
}

export interface SubscriberLevel {
  streams: number
  rssMb: number
  /** The young generation's resident pages in that RSS, empty after the collection (absent in runs up to the one of 2026-12-06 08:16). */
  youngMb?: number
  /** (memory now − memory before any stream) / streams, memory being RSS less the young generation. */
  kbPerStream: number
}

export interface SubscriberResult {
  baselineRssMb: number
  baselineYoungMb?: number
  levels: SubscriberLevel[]
  /** Streams opened per second, and the server's CPU per 1,000 opened. */
  opensPerSec: number
  cpuMsPer1kOpens: number
  /** Streams that got the Task, then CANCELED, then closed, after every task was cancelled. */
  closedOk: number
  errors: number
  firstError?: string
  /** From the first CancelTask to the last stream closed. */
  fanoutMs: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Memory {
  rss: number
  young: number
}

/**
 * The server's RSS after a full garbage collection (it collects on SIGUSR2) and `settleMs`, with
 * the young generation's resident pages it reported after that collection. Those pages hold no
 * live object then, and how many V8 keeps depends on the Node version and the allocation rate
 * (on Node 24 they were up to 11 KB per stream of the node:http floor's RSS at 10,000 streams), so
 * the memory a stream holds is read without them.
 */
export const settledMemory = async (
  spec: Pick<SubscriberSpec, 'serverPid' | 'memoryFile' | 'settleMs'>,
  collections: number,
): Promise<Memory> => {
  process.kill(spec.serverPid, 'SIGUSR2')
  await sleep(spec.settleMs)
  // A loaded machine may run the handler late: the reading is waited for, not assumed.
  const deadline = performance.now() + REPORT_TIMEOUT_MS
  let reading = readMemory(spec.memoryFile)
  while (reading?.collections !== collections && performance.now() < deadline) {
    await sleep(20)
    reading = readMemory(spec.memoryFile)
  }
  if (reading?.collections !== collections)
    throw new Error(`the server reported no memory reading for collection ${collections}`)
  return { rss: rssBytes(spec.serverPid), young: reading.youngResidentBytes }
}

/** How long a server may take to write its reading after the settling time. */
const REPORT_TIMEOUT_MS = 10_000

const readMemory = (file: string): MemoryReading | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as MemoryReading
  } catch {
    return undefined
  }
}

const held = (memory: Memory): number => memory.rss - memory.young
const MB = 1024 * 1024

/** How long a stream may take to open, and all of them to close after the cancellations. */
const OPEN_TIMEOUT_MS = 30_000
const CLOSE_TIMEOUT_MS = 60_000

/** Rejects when `promise` has not settled within `ms`. */
const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

interface OpenStream {
  opened: Promise<void>
  done: Promise<void>
}

/**
 * One SubscribeToTask stream, checked: the first item is the task (not terminal), and the last,
 * once the task is cancelled, its CANCELED status. `opened` resolves at the first item.
 */
const subscribe = (a2a: A2aClient, taskId: string, signal?: AbortSignal): OpenStream => {
  let first: StreamItem | undefined
  let last: StreamItem | undefined
  let markOpen!: () => void
  const opened = new Promise<void>((resolve) => {
    markOpen = resolve
  })
  const done = a2a
    .subscribe(
      taskId,
      (item) => {
        if (!first) {
          first = item
          markOpen()
        }
        last = item
      },
      signal,
    )
    .then(() => {
      if (first?.task?.id !== taskId || isTerminalState(first.task.status?.state))
        throw new Error(`subscription to ${taskId} did not start with the live task`)
      const state = last?.statusUpdate?.status?.state ?? last?.task?.status?.state
      if (state !== CANCELED) throw new Error(`subscription to ${taskId} ended ${state}, not CANCELED`)
    })
  // A stream that fails before its first item still counts as opened (and as an error at the end).
  done.catch(() => markOpen())
  return { opened, done }
}

/**
 * Memory per open subscription: hold `tasks` long-running tasks, read the server's memory (RSS less
 * the young generation), open streams in batches up to each level and read it again (each reading
 * after a full collection, so garbage is not counted); then cancel every task and check that every
 * stream received the cancellation and closed.
 */
export const subscribers = async (spec: SubscriberSpec): Promise<SubscriberResult> => {
  const control = new Http(spec.base, 8)
  const streamsHttp = new Http(spec.base, null)
  const a2a = new A2aClient(control, spec.binding)
  const streamer = new A2aClient(streamsHttp, spec.binding)
  try {
    const taskIds: string[] = []
    for (let i = 0; i < spec.tasks; i++) {
      const task = await a2a.send({ hold: true }, { returnImmediately: true })
      checkAccepted(task)
      taskIds.push(task.id)
    }
    // Warm the code paths (JIT, pools) with a few streams we abandon, so they are not counted.
    const warm = new AbortController()
    const warmups = taskIds.slice(0, 20).map((id) => subscribe(streamer, id, warm.signal))
    await Promise.all(warmups.map((s) => s.opened))
    warm.abort()
    await Promise.allSettled(warmups.map((s) => s.done))
    let collections = 0
    const baseline = await settledMemory(spec, ++collections)

    const open: OpenStream[] = []
    const levels: SubscriberLevel[] = []
    // Opening time and CPU are counted while streams open, not while the server collects garbage.
    let openingMs = 0
    let openCpu = 0
    for (const level of spec.levels) {
      const start = performance.now()
      const cpu0 = cpuMs(spec.serverPid)
      while (open.length < level) {
        const batch: OpenStream[] = []
        for (let i = 0; i < spec.batch && open.length + batch.length < level; i++) {
          batch.push(subscribe(streamer, taskIds[(open.length + batch.length) % taskIds.length]!))
        }
        await within(Promise.all(batch.map((s) => s.opened)), OPEN_TIMEOUT_MS, 'opening streams')
        open.push(...batch)
      }
      openingMs += performance.now() - start
      openCpu += cpuMs(spec.serverPid) - cpu0
      const memory = await settledMemory(spec, ++collections)
      levels.push({
        streams: open.length,
        rssMb: memory.rss / MB,
        youngMb: memory.young / MB,
        kbPerStream: (held(memory) - held(baseline)) / 1024 / open.length,
      })
    }

    const fanoutStart = performance.now()
    for (const id of taskIds) {
      const task = await a2a.cancel(id)
      if (task.status?.state !== CANCELED) throw new Error(`task ${id} is ${task.status?.state} after cancel`)
    }
    const outcomes = await Promise.allSettled(open.map((s) => within(s.done, CLOSE_TIMEOUT_MS, 'a stream')))
    const fanoutMs = performance.now() - fanoutStart
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')
    return {
      baselineRssMb: baseline.rss / MB,
      baselineYoungMb: baseline.young / MB,
      levels,
      opensPerSec: open.length / (openingMs / 1000),
      cpuMsPer1kOpens: (openCpu * 1000) / open.length,
      closedOk: outcomes.length - failures.length,
      errors: failures.length,
      ...(failures[0] && {
        firstError: String((failures[0].reason as Error)?.message ?? failures[0].reason),
      }),
      fanoutMs,
    }
  } finally {
    await streamsHttp.close()
    await control.close()
  }
}
