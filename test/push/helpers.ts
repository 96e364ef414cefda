import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { type AddressInfo, isIP, Socket } from 'node:net'
import ipaddr from 'ipaddr.js'
import { type ClawpediaPushTarget, isClawpediaPushTarget } from '../../src/dialects/clawpedia/push-target.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { emptyTask } from '../../src/model/fold.ts'
import { newId } from '../../src/model/ids.ts'
import type { Delivery, PushTarget } from '../../src/model/push.ts'
import type { Task, TaskHeader } from '../../src/model/task.ts'
import { nowIso } from '../../src/model/time.ts'
import { createGuardedDispatcher } from '../../src/outbound/ssrf.ts'
import { PushWorker, type PushWorkerOptions, type RenderedNotification } from '../../src/push/worker.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'

/** Everything a test opened; `afterEach(runCleanup)` closes it, last opened first. */
const closers: Array<() => Promise<void>> = []
export const onCleanup = (close: () => Promise<void>): void => {
  closers.push(close)
}
export const runCleanup = async (): Promise<void> => {
  for (const close of closers.splice(0).reverse()) await close()
}

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** How the receiver answers the n-th request (0-based): a status, or never (to force timeouts). */
export type Reply = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang'

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number
  close: () => Promise<void>
}

/** A webhook receiver on 127.0.0.1 that records every request it gets, in arrival order. */
export const startReceiver = async (
  respond: (request: Received, n: number) => Reply = () => ({ status: 200 }),
  port = 0,
): Promise<Receiver> => {
  const received: Received[] = []
  let connections = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      }
      const reply = respond(request, received.length)
      received.push(request)
      if (reply === 'hang') return
      const send = () => res.writeHead(reply.status, reply.headers).end()
      if (reply.delayMs) setTimeout(send, reply.delayMs)
      else send()
    })
  })
  server.on('connection', () => {
    connections += 1
  })
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  const bound = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    received,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** A port that was just free: nothing listens there until a receiver is started on it. */
export const closedPort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

export const memoryStore = (): SqliteStore => new SqliteStore({ filename: ':memory:' })

export const AUTH = 'Authorization: Bearer push-secret-token-42'

/** A task with a Clawpedia push target per URL; its opening SUBMITTED status is delivery seq 2. */
export const createPushedTask = async (store: SqliteStore, urls: string | string[]): Promise<string> => {
  const targets = [urls]
    .flat()
    .map((url): ClawpediaPushTarget => ({ kind: 'clawpedia', url, authHeader: AUTH }))
  const { task } = await store.createTask({
    header: {
      id: newId(),
      tenant: 'default',
      owner: 'default',
      agent: 'echo',
      contextId: newId(),
      createdAt: nowIso(),
    },
    input: { word: 'hello' },
    pushTargets: targets,
  })
  return task.id
}

/** WORKING then COMPLETED: with the opening SUBMITTED, three status deliveries (seq 2, 3, 4). */
export const runToCompletion = async (store: SqliteStore, taskId: string): Promise<void> => {
  await store.append({ taskId, events: [{ kind: 'status', state: 'WORKING' }] })
  await store.append({ taskId, events: [{ kind: 'status', state: 'COMPLETED', output: { ok: true } }] })
}

/** The event as JSON, with the target's header line as a header (how Clawpedia targets authenticate). */
export const render = (delivery: Delivery): RenderedNotification => {
  const headers: Record<string, string> = {}
  if (isClawpediaPushTarget(delivery.target) && delivery.target.authHeader) {
    const [name, ...value] = delivery.target.authHeader.split(':')
    headers[name!.trim()] = value.join(':').trim()
  }
  const { event } = delivery
  return {
    body: JSON.stringify({
      taskId: delivery.taskId,
      seq: event.seq,
      state: 'state' in event ? event.state : undefined,
    }),
    headers,
  }
}

/** The Idempotency-Key without its config id: `<taskId>:<seq>`, to compare the events a receiver saw. */
export const eventKeyOf = (request: Received): string => {
  const [taskId, , seq] = String(request.headers['idempotency-key']).split(':')
  return `${taskId}:${seq}`
}

export const bodyOf = (request: Received): { taskId: string; seq: number; state?: string } =>
  JSON.parse(request.body) as { taskId: string; seq: number; state?: string }

export const waitFor = async (
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 4_000,
) => {
  const deadline = Date.now() + timeoutMs
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A receiver closed after the test. */
export const receiver = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
  const started = await startReceiver(...args)
  onCleanup(() => started.close())
  return started
}

/** A store and a fast worker allowed to reach loopback only; `extra` makes more workers on that store. */
export const setupWorker = async (options: Partial<PushWorkerOptions> = {}) => {
  const store = memoryStore()
  const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] })
  onCleanup(() => store.close())
  onCleanup(() => dispatcher.close())
  const extra = (more: Partial<PushWorkerOptions> = {}): PushWorker => {
    const worker = new PushWorker({
      store,
      dispatcher,
      render,
      owner: 'replica-1',
      baseMs: 5,
      capMs: 20,
      pollMs: 5,
      timeoutMs: 1_000,
      ...options,
      ...more,
    })
    onCleanup(() => worker.stop({ drainMs: 1_000 }))
    return worker
  }
  return { store, dispatcher, worker: extra(), extra }
}

/** The outbox settled: this many delivered, this many dead, nothing pending. */
export const settled =
  (store: SqliteStore, delivered: number, dead = 0) =>
  async (): Promise<boolean> => {
    const counts = await store.countDeliveries()
    return counts.delivered === delivered && counts.dead === dead && counts.pending === 0
  }

const staysOnThisHost = (host: string): boolean => {
  if (host === 'localhost') return true
  if (isIP(host) === 0) return false
  const range = ipaddr.process(host).range()
  return range === 'loopback' || range === 'unspecified'
}

/**
 * A safety net for tests that name private addresses: while installed, any TCP connection to a
 * host off this machine is rewritten to a local sink and recorded instead of leaving the host.
 * The guard under test should make it unnecessary; if the guard breaks, the test fails on
 * `tripped` and still sends nothing anywhere.
 */
export const installLoopbackTripwire = async () => {
  const sink = createServer((_req, res) => res.writeHead(599).end())
  sink.listen(0, '127.0.0.1')
  await once(sink, 'listening')
  const sinkPort = (sink.address() as AddressInfo).port
  const tripped: string[] = []
  const original = Socket.prototype.connect
  const guarded = function (this: Socket, ...args: unknown[]) {
    // net.connect passes its normalised [options, callback] pair as the first argument.
    const first = args[0]
    const options = (Array.isArray(first) ? first[0] : first) as
      | { host?: unknown; port?: unknown }
      | undefined
    if (options && typeof options === 'object' && typeof options.host === 'string') {
      if (!staysOnThisHost(options.host)) {
        tripped.push(`${options.host}:${String(options.port)}`)
        options.host = '127.0.0.1'
        options.port = sinkPort
      }
    }
    return Reflect.apply(original, this, args) as Socket
  }
  Socket.prototype.connect = guarded as typeof Socket.prototype.connect
  return {
    tripped,
    uninstall: async () => {
      Socket.prototype.connect = original
      sink.closeAllConnections()
      sink.close()
      await once(sink, 'close')
    },
  }
}

/** An outbox row built by hand, pending, for a renderer: the event for the target, the task as it was then. */
export const deliveryOf = <T extends PushTarget>(event: TaskEvent, task: Task, target: T): Delivery => ({
  id: 'd-1',
  taskId: task.id,
  seq: event.seq,
  configId: 'c-1',
  target,
  event,
  task,
  state: 'pending',
  attempts: 0,
  createdAt: event.at,
  nextAttemptAt: event.at,
})

/** A task of the agent echo, as a hand-built outbox row carries it. */
export const echoTask = (header: Pick<TaskHeader, 'id' | 'createdAt'>, patch: Partial<Task> = {}): Task => ({
  ...emptyTask({ tenant: 'default', owner: 'default', agent: 'echo', contextId: 'ctx-1', ...header }),
  ...patch,
})
