import assert from 'node:assert/strict'
import { once } from 'node:events'
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http'
import { type AddressInfo, createServer, connect as netConnect, type Socket } from 'node:net'
import type { TaskUpdate } from '../../src/client/types.ts'
import { ClientError } from '../../src/client.ts'

/** A port that was free a moment ago (nothing listens on it until someone binds it). */
export const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

export interface TcpProxy {
  port: number
  /** Where connections go (settable: a server may need the proxy's URL before it starts). */
  target: number
  /** Connections accepted so far. */
  connections: () => number
  /** Destroys every open connection, both sides: the client sees the stream break mid-way. */
  cut(): void
  /** Open connections stop forwarding server bytes (dropped), without closing: a silent dead link. */
  freeze(): void
  close(): Promise<void>
}

/** A TCP proxy on 127.0.0.1 in front of `targetPort`, so a test can break the client's connections. */
export const tcpProxy = async (targetPort = 0): Promise<TcpProxy> => {
  const pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>()
  let accepted = 0
  const server = createServer((client) => {
    accepted += 1
    const upstream = netConnect(proxy.target, '127.0.0.1')
    const pair = { client, upstream, frozen: false }
    pairs.add(pair)
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => {
      if (!pair.frozen) client.write(chunk)
    })
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('close', drop)
    upstream.on('close', drop)
    client.on('error', () => {})
    upstream.on('error', () => {})
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    target: targetPort,
    connections: () => accepted,
    cut() {
      for (const pair of [...pairs]) {
        pair.client.destroy()
        pair.upstream.destroy()
      }
    },
    freeze() {
      for (const pair of pairs) pair.frozen = true
    },
    async close() {
      for (const pair of [...pairs]) {
        pair.client.destroy()
        pair.upstream.destroy()
      }
      server.close()
      await once(server, 'close')
    },
  }
  return proxy
}

export interface Recorded {
  method: string
  url: string
  headers: IncomingHttpHeaders
}

export interface RecordingProxy {
  url: string
  requests: Recorded[]
  /** Where requests go; set once the target is known. */
  target: string
  close(): Promise<void>
}

/** An HTTP proxy that records every request (method, path, headers) and forwards it, streaming the answer. */
export const recordingProxy = async (): Promise<RecordingProxy> => {
  const proxy: RecordingProxy = { url: '', requests: [], target: '', close: async () => {} }
  const server: Server = createHttpServer((req, res) => {
    proxy.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers })
    const target = new URL(req.url ?? '/', proxy.target)
    const upstream = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  }
  return proxy
}

/** A tiny HTTP server answering with `respond`; closed by `close()`. */
export const stubServer = async (
  respond: (req: { method: string; url: string; headers: IncomingHttpHeaders; body: string }) => {
    status: number
    headers?: Record<string, string>
    body?: string | object
  },
): Promise<{ url: string; hits: Recorded[]; close(): Promise<void> }> => {
  const hits: Recorded[] = []
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }
      hits.push(request)
      const answer = respond({ ...request, body: Buffer.concat(chunks).toString('utf8') })
      const body = typeof answer.body === 'object' ? JSON.stringify(answer.body) : answer.body
      res.writeHead(answer.status, {
        ...(typeof answer.body === 'object' && { 'content-type': 'application/json' }),
        ...answer.headers,
      })
      res.end(body)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** Every update of an iteration, in order. */
export const collect = async (updates: AsyncIterable<TaskUpdate>): Promise<TaskUpdate[]> => {
  const all: TaskUpdate[] = []
  for await (const update of updates) all.push(update)
  return all
}

/** A compact, comparable form of updates: `status:STATE`, `log:message`, `artifact:id`. */
export const shapes = (updates: TaskUpdate[]): string[] =>
  updates.map((u) =>
    u.type === 'status'
      ? `status:${u.task.state}`
      : u.type === 'log'
        ? `log:${u.message}`
        : `artifact:${u.artifact.id}`,
  )

/** The ids updates carried (the stream's event ids), in order. */
export const idsOf = (updates: TaskUpdate[]): number[] =>
  updates.filter((u) => u.id !== undefined).map((u) => Number(u.id))

/** A minimal A2A 1.0 card naming these interfaces, for a stub server to answer. */
export const stubCard = (interfaces: object[]) => ({
  name: 'Stub',
  description: 'A stub agent',
  version: '1',
  supportedInterfaces: interfaces,
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 's', name: 's', description: 's', tags: [] }],
})

/** For assert.rejects: a ClientError with this code; `check` asserts more of it. */
export const rejectsWith = (code: string, check?: (error: ClientError) => void) => (error: unknown) => {
  assert.ok(error instanceof ClientError, `a ClientError, got ${String(error)}`)
  assert.equal(error.code, code, error.message)
  check?.(error)
  return true
}
