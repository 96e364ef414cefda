import type { FastifyServerOptions } from 'fastify'
import { DEFAULTS } from './defaults.ts'

/** Connection timeouts and the connection cap (docs/limits.md). A timeout of 0 turns it off. */
export interface ConnectionOptions {
  /** Time for a request's headers to arrive; past it: 408 REQUEST_TIMEOUT and the connection closes. */
  headersTimeoutMs?: number
  /**
   * Time for a whole request (headers and body) to arrive; past it: 408 REQUEST_TIMEOUT. It ends
   * once the request is read, so a response that lasts (an SSE stream) is not cut by it.
   */
  requestTimeoutMs?: number
  /** How long an idle keep-alive connection stays open between requests. */
  idleTimeoutMs?: number
  /** Connections open at once; a connection past it is closed at once, before a request is read. */
  maxConnections?: number
}

export const connectionsOf = (options: ConnectionOptions = {}): Required<ConnectionOptions> => ({
  headersTimeoutMs: options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs,
  requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
  idleTimeoutMs: options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
  maxConnections: options.maxConnections ?? DEFAULTS.maxConnections,
})

/**
 * Node's server options for the connections: passed at creation, as Node checks the header and
 * request timeouts on an interval fixed then (30 s by default, which would let a 1 s timeout run
 * for 31 s). Checking as often as the shortest timeout keeps each within twice its value.
 */
export const nodeServerOptionsOf = (connections: Required<ConnectionOptions>) => {
  const timeouts = [connections.headersTimeoutMs, connections.requestTimeoutMs].filter((ms) => ms > 0)
  return {
    headersTimeout: connections.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, ...timeouts),
  }
}

/** fastify's options for the connections; the cap is set on the listening server (`applyConnectionCap`). */
export const fastifyConnectionOptionsOf = (
  connections: Required<ConnectionOptions>,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> => ({
  requestTimeout: connections.requestTimeoutMs,
  keepAliveTimeout: connections.idleTimeoutMs,
})

/** Past the cap Node closes a new connection at once: it has no request yet to answer 503 to. */
export const applyConnectionCap = (
  server: { maxConnections: number },
  connections: Required<ConnectionOptions>,
): void => {
  if (connections.maxConnections > 0) server.maxConnections = connections.maxConnections
}
