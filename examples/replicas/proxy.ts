import { once } from 'node:events'
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ProxyOptions {
  port: number
  host?: string
  /** Base URLs of the replicas, e.g. http://127.0.0.1:8081. */
  upstreams: string[]
  /** How long a replica that refused a connection is skipped. */
  downForMs?: number
}

export interface Proxy {
  url: string
  close(): Promise<void>
}

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Hop-by-hop headers describe one connection, not the request; they are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'])

const forwardable = (headers: IncomingMessage['headers']): Record<string, string | string[]> => {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
  }
  return out
}

/**
 * A round-robin HTTP proxy in front of Switchboard replicas, in plain node:http: the smallest
 * load balancer that shows what a real one needs. No stickiness: any replica serves any request,
 * because the tasks live in PostgreSQL. Responses are piped as they arrive, so SSE streams flow
 * unbuffered and stay open as long as the client keeps them. A replica that refuses the connection
 * (stopped, crashed) is skipped for a while and the request goes to the next one; the request body
 * is read first so it can be sent again. Once a replica has accepted a request, it is never retried
 * elsewhere: it may have acted on it (use `Idempotency-Key` for safe client retries).
 */
export const startProxy = async (options: ProxyOptions): Promise<Proxy> => {
  const { upstreams, downForMs = 2_000 } = options
  const agent = new Agent({ keepAlive: true })
  const downUntil = new Map<string, number>()
  let turn = 0

  /** The next replica in turn that is not marked down (or the next one in turn, if all are). */
  const pick = (): string => {
    for (let i = 0; i < upstreams.length; i++) {
      const upstream = upstreams[turn++ % upstreams.length]!
      if ((downUntil.get(upstream) ?? 0) <= Date.now()) return upstream
    }
    return upstreams[turn++ % upstreams.length]!
  }

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, triesLeft: number): void => {
    const upstream = pick()
    const target = new URL(req.url ?? '/', upstream)
    const outgoing = request(
      target,
      { method: req.method, headers: { ...forwardable(req.headers), host: target.host }, agent },
      (response) => {
        res.writeHead(response.statusCode ?? 502, forwardable(response.headers))
        // Send the head now: an SSE client should see the stream open before the first event.
        res.flushHeaders()
        response.pipe(res)
      },
    )
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && triesLeft > 1 && !res.headersSent) {
        downUntil.set(upstream, Date.now() + downForMs)
        forward(req, res, body, triesLeft - 1)
        return
      }
      if (res.headersSent) res.destroy()
      else {
        res.writeHead(502, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            error: { code: 'UNAVAILABLE', message: `no replica answered: ${error.message}` },
          }),
        )
      }
    })
    // The client hung up early (a closed SSE stream): let the replica know at once.
    res.once('close', () => {
      if (!res.writableFinished) outgoing.destroy()
    })
    outgoing.end(body)
  }

  const server = createServer((req, res) => {
    readBody(req).then(
      (body) => forward(req, res, body, upstreams.length),
      () => res.destroy(),
    )
  })
  server.listen(options.port, options.host ?? '127.0.0.1')
  await once(server, 'listening')
  const { address, port } = server.address() as AddressInfo
  return {
    url: `http://${address}:${port}`,
    async close() {
      server.closeAllConnections()
      server.close()
      agent.destroy()
      await once(server, 'close')
    },
  }
}
