import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  READY_PREFIX,
  RESULT_PREFIX,
  type ReadyLine,
  type ServerOptions,
  type Target,
  usesPostgres,
} from '../protocol.ts'
import { createDatabase, dropDatabase } from './postgres.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const SERVER_MAIN = join(ROOT, 'bench', 'servers', 'main.ts')
const CLIENT_MAIN = join(ROOT, 'bench', 'client', 'main.ts')

/** Whether `taskset` can pin processes here (it needs two cores to be worth it). */
export const canPin = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

export interface ProcessOptions {
  /** Pin to this core with taskset (see the plan's pinning policy). */
  core?: number
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[]
}

const launch = (script: string, arg: string | undefined, options: ProcessOptions): ChildProcess => {
  const node = [...(options.nodeFlags ?? []), '--import', 'tsx', script, ...(arg === undefined ? [] : [arg])]
  const [command, args] =
    options.core !== undefined && canPin
      ? ['taskset', ['-c', String(options.core), process.execPath, ...node]]
      : [process.execPath, node]
  return spawn(command, args, { cwd: ROOT, stdio: [arg === undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'] })
}

/** Collects a child's output; resolves with the first line that starts with `prefix`. */
const lineWith = (child: ChildProcess, prefix: string, timeoutMs: number, what: string): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    const fail = (why: string) => {
      clearTimeout(timer)
      reject(new Error(`${what} ${why}\n${err.slice(-2000)}`))
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      fail(`gave no result within ${timeoutMs} ms`)
    }, timeoutMs)
    child.stdout!.setEncoding('utf8')
    child.stderr!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      out += chunk
      const line = out.split('\n').find((l) => l.startsWith(prefix))
      if (line) {
        clearTimeout(timer)
        resolve(line.slice(prefix.length))
      }
    })
    child.stderr!.on('data', (chunk: string) => {
      err = (err + chunk).slice(-20_000)
    })
    child.once('exit', (code) => fail(`exited (${code})`))
  })

export interface RunningServer {
  ready: ReadyLine
  stop(): Promise<void>
}

/** Starts a fresh server (new data directory, new PostgreSQL database) and waits until it listens. */
export const startServer = async (
  target: Target,
  options: ProcessOptions & { pgUrl?: string; push?: boolean },
): Promise<RunningServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-bench-${target}-`))
  if (usesPostgres(target)) await createDatabase(options.pgUrl!)
  const serverOptions: ServerOptions = {
    target,
    dataDir,
    ...(usesPostgres(target) && { pgUrl: options.pgUrl! }),
    ...(options.push && { push: true }),
  }
  // --expose-gc: the subscriber scenario asks for a collection (SIGUSR2) before reading memory.
  const child = launch(SERVER_MAIN, JSON.stringify(serverOptions), {
    ...options,
    nodeFlags: ['--expose-gc', ...(options.nodeFlags ?? [])],
  })
  const cleanUp = async () => {
    rmSync(dataDir, { recursive: true, force: true })
    if (usesPostgres(target)) await dropDatabase(options.pgUrl!)
  }
  let ready: ReadyLine
  try {
    ready = JSON.parse(await lineWith(child, READY_PREFIX, 60_000, `the ${target} server`)) as ReadyLine
  } catch (error) {
    child.kill('SIGKILL')
    await cleanUp()
    throw error
  }
  // Drain its output so a chatty server never blocks on a full pipe.
  child.stdout!.resume()
  child.stderr!.resume()
  return {
    ready,
    async stop() {
      await stopProcess(child, 8000)
      await cleanUp()
    },
  }
}

/**
 * Stops a child: SIGTERM, then SIGKILL after `graceMs`. One that has ended already, by its own
 * exit or by a signal (a server that aborted), is not waited for: its 'exit' has been emitted.
 */
export const stopProcess = async (child: ChildProcess, graceMs: number): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

export interface PendingClient {
  /** Hands the load generator its work; resolves with its parsed result. */
  run<T>(spec: object, timeoutMs: number): Promise<T>
  /** Lets it exit without work (the server did not start). */
  cancel(): void
}

/**
 * Starts the load generator now, while the server is still starting, so its own start-up (tsx
 * loading the client) costs no time in the run; it waits for its spec on stdin.
 */
export const startClient = (options: ProcessOptions): PendingClient => {
  const child = launch(CLIENT_MAIN, undefined, options)
  return {
    async run<T>(spec: object, timeoutMs: number): Promise<T> {
      const line = lineWith(child, RESULT_PREFIX, timeoutMs, 'the load generator')
      child.stdin!.end(`${JSON.stringify(spec)}\n`)
      return JSON.parse(await line) as T
    },
    cancel() {
      child.stdin!.end('\n')
    },
  }
}
