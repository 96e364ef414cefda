import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Worker } from 'node:worker_threads'
import pg from 'pg'
import { type ServerProcess, spawnServer } from '../helpers/process.ts'
import { request } from '../helpers/server.ts'
import { type ReceivedEvent, readSse } from '../helpers/sse.ts'

/** The agent modules every replica hosts: the demo agents and the tracked fixtures. */
export const AGENTS = ['src/demo/index.ts', 'test/fixtures/replica-agents.ts']

export const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED']

export interface Replica extends ServerProcess {
  pid: number
  /** `{url}/agents/{slug}`. */
  base(slug: string): string
}

/**
 * `count` real `switchboard serve --store postgres://…` processes on one database, each on a port
 * of its own (the OS picks it: PORT=0), started together. `url` may differ per replica (a list):
 * the same database reached by different routes. If one fails to start, none is left running.
 */
export const startReplicas = async (
  url: string | string[],
  count: number,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Replica[]> => {
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => {
      const store = Array.isArray(url) ? url[i]! : url
      return spawnServer([...AGENTS, '--store', store, '--allow-outbound', '127.0.0.1', ...args], env)
    }),
  )
  const replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  if (replicas.length < count) {
    await Promise.all(replicas.map((r) => r.kill()))
    throw (started.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason
  }
  return replicas.map((r) =>
    Object.assign(r, { pid: r.child.pid!, base: (slug: string) => `${r.url}/agents/${slug}` }),
  )
}

/** Stops every replica still running (SIGTERM, then SIGKILL if it hangs). */
export const stopReplicas = async (replicas: readonly Replica[]): Promise<void> => {
  await Promise.all(
    replicas.map(async (r) => {
      if (r.child.exitCode !== null || r.child.signalCode !== null) return
      const timer = setTimeout(() => r.child.kill('SIGKILL'), 10_000)
      await r.stop()
      clearTimeout(timer)
    }),
  )
}

export interface RunReport {
  task: string
  pid: number
  at: number
}

/** Where the tracked fixture agents report each run's start and abort (test/fixtures/replica-agents.ts). */
export interface Recorder {
  url: string
  starts: RunReport[]
  aborts: RunReport[]
  startsOf(task: string): RunReport[]
  /** Holds every start report unanswered (each run waits in its first step) until `release()`. */
  hold(): void
  /** Answers the held start reports and every later one at once. */
  release(): void
  close(): Promise<void>
}

export const startRecorder = async (): Promise<Recorder> => {
  const starts: RunReport[] = []
  const aborts: RunReport[] = []
  let held: ServerResponse[] | undefined
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://recorder')
    const report = {
      task: url.searchParams.get('task') ?? '',
      pid: Number(url.searchParams.get('pid')),
      at: Date.now(),
    }
    if (url.pathname === '/start') starts.push(report)
    else if (url.pathname === '/abort') aborts.push(report)
    if (url.pathname === '/start' && held) held.push(res)
    else res.writeHead(204).end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    starts,
    aborts,
    startsOf: (task) => starts.filter((s) => s.task === task),
    hold() {
      held ??= []
    },
    release() {
      for (const res of held ?? []) res.writeHead(204).end()
      held = undefined
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** The test's own window on the database: the event log and the task rows, as the replicas left them. */
export class Database {
  readonly #client: pg.Client

  private constructor(client: pg.Client) {
    this.#client = client
  }

  static async open(url: string): Promise<Database> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    return new Database(client)
  }

  async query<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.#client.query<R>(sql, values)).rows
  }

  /** Every event of a task, as stored: (seq, kind, state). */
  async events(taskId: string): Promise<{ seq: number; kind: string; state: string | null }[]> {
    return (await this.storedEvents([taskId])).map(({ seq, kind, state }) => ({ seq, kind, state }))
  }

  /** Every event of these tasks, as stored (a row holds one write's events, a JSON array), in order. */
  storedEvents(
    taskIds: readonly string[],
  ): Promise<{ task_id: string; seq: number; kind: string; state: string | null }[]> {
    return this.query(
      `SELECT task_id, (e.value->>'seq')::int AS seq, e.value->>'kind' AS kind, e.value->>'state' AS state
       FROM switchboard.events, json_array_elements(body) AS e(value)
       WHERE task_id = ANY($1) ORDER BY task_id, seq`,
      [taskIds],
    )
  }

  close(): Promise<void> {
    return this.#client.end()
  }
}

/** The pid inside a lease owner: the server names its replicas `replica-<pid>-<start time>`. */
export const pidOfOwner = (owner: string | null): number | undefined => {
  const match = /^replica-(\d+)-/.exec(owner ?? '')
  return match ? Number(match[1]) : undefined
}

const A2A_HEADERS = { 'A2A-Version': '1.0' }

/** One A2A JSON-RPC call on an agent's mount; resolves with `result`, throws on a JSON-RPC error. */
export const a2aCall = async <T = unknown>(base: string, method: string, params: object): Promise<T> => {
  const { status, body } = await request(`${base}/a2a/jsonrpc`, {
    headers: A2A_HEADERS,
    body: { jsonrpc: '2.0', id: 1, method, params },
  })
  if (status !== 200 || body.error) throw new Error(`${method} failed: ${status} ${JSON.stringify(body)}`)
  return body.result as T
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A Clawpedia task stream (`GET {base}/tasks/{id}/stream`), optionally resumed. */
export const clawpediaStream = (
  base: string,
  taskId: string,
  options: { lastEventId?: number; stopWhen?: (event: ReceivedEvent) => boolean; timeoutMs?: number } = {},
) =>
  readSse(`${base}/tasks/${taskId}/stream`, {
    headers: options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) },
    ...(options.stopWhen && { stopWhen: options.stopWhen }),
    timeoutMs: options.timeoutMs ?? 20_000,
  })

/** A2A SubscribeToTask over JSON-RPC (an SSE response), optionally resumed with Last-Event-ID. */
export const a2aSubscribe = (
  base: string,
  taskId: string,
  options: { lastEventId?: number; stopWhen?: (event: ReceivedEvent) => boolean; timeoutMs?: number } = {},
) =>
  readSse(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...A2A_HEADERS,
      ...(options.lastEventId !== undefined && { 'last-event-id': String(options.lastEventId) }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
    ...(options.stopWhen && { stopWhen: options.stopWhen }),
    timeoutMs: options.timeoutMs ?? 20_000,
  })

/** The `id:`s of a stream's frames (the task's event sequence), pings left out. */
export const idsOf = (events: readonly ReceivedEvent[]): number[] =>
  events.filter((e) => e.id !== undefined && e.event !== 'ping').map((e) => Number(e.id))

/** The state an A2A stream frame reports, if it is a status update. */
export const a2aStateOf = (event: ReceivedEvent): string | undefined =>
  JSON.parse(event.data).result?.statusUpdate?.status?.state

export interface SinkRecord {
  path: string
  query: Record<string, string>
  idempotencyKey: string | undefined
  body: string
  at: number
}

/** An HTTP endpoint that records every request, served from its own thread (see startSink). */
export interface Sink {
  url: string
  records(): Promise<SinkRecord[]>
  close(): Promise<void>
}

/**
 * The recorder and webhook receiver in one endpoint — the fixture agents report runs to `/run/…`,
 * replicas push to `/hook` — running on a worker thread. Under load, a receiver that shares its
 * event loop with fifty clients and hundreds of streams answers late, and a push answered after
 * the 10 s timeout is rightly sent again; on its own thread it answers like a real receiver.
 */
export const startSink = async (): Promise<Sink> => {
  const worker = new Worker(SINK_SOURCE, { eval: true })
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port))
    worker.once('error', reject)
  })
  return {
    url: `http://127.0.0.1:${port}`,
    async records() {
      worker.postMessage('dump')
      const [message] = (await once(worker, 'message')) as [{ records: SinkRecord[] }]
      return message.records
    },
    async close() {
      worker.postMessage('close')
      await once(worker, 'exit')
    },
  }
}

/** Plain JavaScript: a worker evaluated from a string gets no TypeScript loader. */
const SINK_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { createServer } = require('node:http')
const records = []
const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    const url = new URL(req.url, 'http://sink')
    records.push({
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      idempotencyKey: req.headers['idempotency-key'],
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
    })
    res.writeHead(url.pathname === '/hook' ? 200 : 204).end()
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
parentPort.on('message', (message) => {
  if (message === 'dump') parentPort.postMessage({ records })
  if (message === 'close') {
    server.closeAllConnections()
    server.close(() => parentPort.close())
  }
})
`
