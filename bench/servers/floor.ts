import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import {
  artifactCount,
  artifactName,
  artifactText,
  type BenchInput,
  FASTIFY_STORE_FLOOR,
  JSONRPC_PATH,
  type ServerOptions,
} from '../protocol.ts'
import { PgLifecycleFloor } from './floor-pg-store.ts'
import { FloorStore } from './floor-store.ts'
import { SwitchboardStoreFloor } from './floor-switchboard-store.ts'

type Rpc = {
  id: unknown
  method: string
  params: {
    id?: string
    message?: { parts?: { data?: BenchInput }[] }
    configuration?: { returnImmediately?: boolean }
  }
}

/** HTTP+JSON's operations told apart by the path's suffix; any other GET is GetTask, any other POST SendMessage. */
const REST_SUFFIXES: readonly [suffix: string, method: string][] = [
  [':subscribe', 'SubscribeToTask'],
  [':cancel', 'CancelTask'],
  ['/message:stream', 'SendStreamingMessage'],
]
const restMethod = (httpMethod: string | undefined, url: string): string =>
  REST_SUFFIXES.find(([suffix]) => url.endsWith(suffix))?.[1] ??
  (httpMethod === 'GET' ? 'GetTask' : 'SendMessage')

/** What a floor writes each task to before answering it, and reads it back from; `http-floor` has none. */
interface FloorWrites {
  /**
   * Resolves once the task is written. A store that writes a task in two commits, as Switchboard's
   * does, calls `created` after the first: a returnImmediately send is answered there.
   */
  write(id: string, task: object, message: object, created?: () => void): Promise<void>
  /** The task as GetTask answers it, read from the store. */
  read(id: string): Promise<object | undefined>
  close(): unknown
}

const STORES: Partial<
  Record<ServerOptions['target'], (options: ServerOptions) => FloorWrites | Promise<FloorWrites>>
> = {
  'durable-floor': (options) => new FloorStore(options.dataDir),
  'store-floor': (options) => SwitchboardStoreFloor.sqlite(options.dataDir),
  'fastify-store-floor': (options) => SwitchboardStoreFloor.sqlite(options.dataDir),
  'pg-store-floor': (options) => SwitchboardStoreFloor.postgres(options.pgUrl!),
  'pg-lifecycle-floor': (options) => PgLifecycleFloor.open(options.pgUrl!),
}

/**
 * The floors under the contenders: bare node:http with just enough A2A (SendMessage,
 * SendStreamingMessage, SubscribeToTask, CancelTask; no validation, no task model) for the same
 * client to drive it and its checks to pass. A held task (the subscriber scenario) is kept open
 * until cancelled; any other task is answered COMPLETED with the artifacts asked for, at once or
 * as a stream, or (returnImmediately) WORKING once its creation is written, for GetTask to read
 * back from the floor's store (`http-floor` keeps it in memory). `durable-floor` first writes
 * each task once (FloorStore), as a durable server must at the least; `store-floor` writes it as Switchboard SQLite's store does (SwitchboardStoreFloor:
 * its events, indexes and the message's idempotency record), `fastify-store-floor` the same behind
 * fastify, `pg-store-floor` as Switchboard
 * PostgreSQL's store does, its bus listening; `pg-lifecycle-floor` first writes the
 * anchor lifecycle in PostgreSQL (PgLifecycleFloor); `http-floor` writes nothing. What they cost is
 * what Node's HTTP/1.1 exchange (and those writes) costs, whoever serves it.
 */
export const startFloor = async (
  options: ServerOptions,
): Promise<{ base: string; close(): Promise<void> }> => {
  const store = await STORES[options.target]?.(options)
  const streams = new Map<string, Set<{ res: ServerResponse; rpcId: unknown }>>()
  const unstored = new Map<string, object>()
  const write = (
    taskId: string,
    task: object,
    message: object,
    returnImmediately: boolean,
  ): Promise<void> => {
    if (!store) {
      if (returnImmediately) unstored.set(taskId, task)
      return Promise.resolve()
    }
    if (!returnImmediately) return store.write(taskId, task, message)
    return new Promise((accepted, fail) => {
      store.write(taskId, task, message, accepted).then(accepted, fail)
    })
  }
  let made = 0
  // Time-ordered ids, as Switchboard's: each row goes to the right edge of the table's B-tree.
  const newTaskId = (): string =>
    `${Date.now().toString().padStart(15, '0')}-${(++made).toString().padStart(9, '0')}`
  const taskOf = (id: string, state: string) => ({ id, contextId: id, status: { state } })
  const artifactsOf = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      artifactId: `${i}`,
      name: artifactName(i),
      parts: [{ text: artifactText(i) }],
    }))
  const frame = (rpcId: unknown, result: object) =>
    `data: ${JSON.stringify(rpcId === undefined ? result : { jsonrpc: '2.0', id: rpcId, result })}\n\n`

  /** JSON-RPC at its path; HTTP+JSON operations are told apart by the path's suffix alone. */
  const handle = async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const rpc = req.url === JSONRPC_PATH ? (JSON.parse(body) as Rpc) : undefined
    const url = req.url ?? ''
    const method = rpc?.method ?? restMethod(req.method, url)
    const params =
      rpc?.params ?? (req.method === 'POST' && body !== '' ? (JSON.parse(body) as Rpc['params']) : {})
    const id = params.id ?? /\/tasks\/([^:/?]+)/.exec(url)?.[1] ?? ''
    const answer = (result: object) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(rpc ? { jsonrpc: '2.0', id: rpc.id, result } : result))
    }
    const input = params.message?.parts?.[0]?.data ?? {}
    if (method === 'SendMessage' && input.hold === true) {
      const taskId = newTaskId()
      streams.set(taskId, new Set())
      answer({ task: taskOf(taskId, 'TASK_STATE_WORKING') })
      return
    }
    if (method === 'SendMessage' || method === 'SendStreamingMessage') {
      const taskId = newTaskId()
      const artifacts = artifactsOf(artifactCount(input))
      const task = { ...taskOf(taskId, 'TASK_STATE_COMPLETED'), artifacts }
      const returnImmediately = method === 'SendMessage' && params.configuration?.returnImmediately === true
      await write(taskId, task, params.message ?? {}, returnImmediately)
      if (method === 'SendMessage') {
        answer({ task: returnImmediately ? taskOf(taskId, 'TASK_STATE_WORKING') : task })
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      let out = frame(rpc?.id, { task: taskOf(taskId, 'TASK_STATE_WORKING') })
      for (const artifact of artifacts)
        out += frame(rpc?.id, { artifactUpdate: { taskId, contextId: taskId, artifact } })
      out += frame(rpc?.id, {
        statusUpdate: { taskId, contextId: taskId, status: { state: 'TASK_STATE_COMPLETED' } },
      })
      res.end(out)
      return
    }
    if (method === 'GetTask') {
      const task = store ? await store.read(id) : unstored.get(id)
      if (task) answer(task)
      else res.writeHead(404).end()
      return
    }
    const open = streams.get(id)
    if (method === 'SubscribeToTask' && open) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame(rpc?.id, { task: taskOf(id, 'TASK_STATE_WORKING') }))
      const entry = { res, rpcId: rpc?.id }
      open.add(entry)
      res.once('close', () => open.delete(entry))
      return
    }
    if (method === 'CancelTask' && open) {
      const update = { statusUpdate: { taskId: id, contextId: id, status: { state: 'TASK_STATE_CANCELED' } } }
      for (const stream of open) stream.res.end(frame(stream.rpcId, update))
      streams.delete(id)
      answer(taskOf(id, 'TASK_STATE_CANCELED'))
      return
    }
    res.writeHead(404).end()
  }

  const serve = options.target === FASTIFY_STORE_FLOOR ? serveWithFastify : serveWithNodeHttp
  const listening = await serve(handle)
  return {
    base: listening.base,
    close: async () => {
      await listening.close()
      await Promise.resolve(store?.close()).catch(() => {})
    },
  }
}

type Handle = (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>
interface Listening {
  base: string
  close(): Promise<void>
}

const serveWithNodeHttp = async (handle: Handle): Promise<Listening> => {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      handle(req, res, body).catch(() => res.writeHead(500).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * The same handler behind fastify, as Switchboard's routes are (whose parser also reads the body
 * whole before parsing it): one catch-all route, its reply hijacked so the handler writes the
 * response as on node:http.
 */
const serveWithFastify = async (handle: Handle): Promise<Listening> => {
  const app = Fastify({ logger: false })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  app.route({
    method: ['GET', 'POST'],
    url: '/*',
    handler: (request, reply) => {
      reply.hijack()
      const body = typeof request.body === 'string' ? request.body : ''
      handle(request.raw, reply.raw, body).catch(() => reply.raw.writeHead(500).end())
    },
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    base: address,
    close: async () => {
      app.server.closeAllConnections()
      await app.close()
    },
  }
}
