/**
 * Three Switchboard replicas on one PostgreSQL database, behind a round-robin proxy:
 *
 *   npm run example:replicas -- postgres://postgres@127.0.0.1:5432/switchboard_example
 *
 * Creates the database if it does not exist, starts the replicas (the demo agents, a 5 s lease so
 * failover is quick to watch), then the proxy on PORT (default 8080), and prints where everything
 * is. Ctrl-C stops the proxy and shuts every replica down gracefully. See README.md here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startProxy } from './proxy.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const REPLICAS = 3

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

/** Connects once to check the database exists; creates it (from the `postgres` database) if not. */
const ensureDatabase = async (url: string): Promise<void> => {
  const client = new pg.Client({ connectionString: url })
  try {
    await client.connect()
    return
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error
  } finally {
    await client.end().catch(() => {})
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) fail(`will not create a database named "${name}"`)
  const maintenance = new URL(url)
  maintenance.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: maintenance.toString() })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
    process.stdout.write(`created database ${name}\n`)
  } finally {
    await admin.end()
  }
}

/** Ports that were free a moment ago, all held at once so none is handed out twice. */
const freePorts = async (count: number): Promise<number[]> => {
  const servers = Array.from({ length: count }, () => createServer().listen(0, '127.0.0.1'))
  await Promise.all(servers.map((s) => once(s, 'listening')))
  const ports = servers.map((s) => (s.address() as AddressInfo).port)
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
  return ports
}

interface Replica {
  name: string
  url: string
  child: ChildProcess
}

/** Replica output worth showing: warnings and errors, and plain lines after the start-up banner. */
const worthShowing = (line: string, listening: boolean): boolean => {
  if (!line.startsWith('{')) return listening
  try {
    return (JSON.parse(line) as { level?: number }).level! >= 40
  } catch {
    return true
  }
}

/** One `switchboard serve`, its notable output prefixed with its name; resolves once it listens. */
const startReplica = (name: string, store: string, port: number, publicUrl: string): Promise<Replica> => {
  const args = ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--store', store, '--port', String(port)]
  // Links in cards and payloads name the proxy, which is where clients reach every replica.
  args.push('--public-url', publicUrl, '--lease-ms', '5000')
  // The proxy carries HTTP only, and the replicas' ports are any free ones (port + 1 may be taken):
  // no gRPC here, so no card offers an interface the proxy cannot reach.
  args.push('--grpc-port', 'off')
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let listening = false
  let early = ''
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`${name} exited with ${code} before listening:\n${early}`))
    child.once('exit', onExit)
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding('utf8')
      stream.on('data', (text: string) => {
        if (!listening) early += text
        for (const line of text.split('\n')) {
          if (line && worthShowing(line, listening)) process.stdout.write(`[${name}] ${line}\n`)
        }
        if (!listening && early.includes('Agent directory:')) {
          listening = true
          child.off('exit', onExit)
          resolve({ name, url: `http://127.0.0.1:${port}`, child })
        }
      })
    }
  })
}

/** SIGTERM (graceful: running tasks get their grace period), then SIGKILL if one hangs. */
const stopReplica = async ({ child }: Replica): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

const main = async (): Promise<void> => {
  const store = process.argv[2] ?? process.env.SWITCHBOARD_STORE
  if (!store || !/^postgres(ql)?:\/\//.test(store)) {
    fail('usage: npm run example:replicas -- postgres://user@host:5432/database')
  }
  const port = Number(process.env.PORT ?? 8080)
  await ensureDatabase(store!)
  const ports = await freePorts(REPLICAS)
  const publicUrl = `http://127.0.0.1:${port}`
  const replicas: Replica[] = []
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined
  let stopping = false
  const stopAll = async (code: number): Promise<never> => {
    stopping = true
    await proxy?.close()
    await Promise.all(replicas.map(stopReplica))
    process.exit(code)
  }
  try {
    // Started together, as a deployment would: the schema migration runs once, under its lock.
    const started = await Promise.allSettled(
      ports.map((p, i) => startReplica(`replica ${i + 1}`, store!, p, publicUrl)),
    )
    for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value)
    const failed = started.find((s) => s.status === 'rejected')
    if (failed) throw failed.reason
    proxy = await startProxy({ port, upstreams: replicas.map((r) => r.url) })
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    await stopAll(1)
  }
  for (const replica of replicas) {
    replica.child.once('exit', (code, signal) => {
      if (!stopping)
        process.stdout.write(
          `${replica.name} exited (${signal ?? code}); the others take over its tasks once their lease lapses\n`,
        )
    })
  }
  const lines = [
    '',
    `Switchboard: ${REPLICAS} replicas behind ${proxy!.url} (round-robin)`,
    ...replicas.map((r) => `  ${r.name}: ${r.url}  pid ${r.child.pid}`),
    '',
    'Try it through the proxy (every request may land on another replica):',
    `  curl -s -X POST ${proxy!.url}/agents/long-runner/tasks -H 'content-type: application/json' -d '{"input":{"steps":20}}'`,
    `  curl -sN ${proxy!.url}/agents/long-runner/tasks/<task_id>/stream`,
    `  kill -9 <a replica's pid>   # its tasks move to the others within the 5 s lease`,
    '',
    `Proxy ready on ${proxy!.url} — Ctrl-C stops everything.`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
  process.once('SIGINT', () => void stopAll(0))
  process.once('SIGTERM', () => void stopAll(0))
}

await main()
