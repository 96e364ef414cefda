/**
 * The server's defaults, in a module of their own so the CLI can print them without loading the
 * server (client commands start faster).
 */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  pingMs: 15_000,
  stallMs: 30_000,
  bodyLimit: 4 * 1024 * 1024,
  /** Time for a request's headers to arrive (Node's `headersTimeout`). */
  headersTimeoutMs: 10_000,
  /** Time for a whole request, headers and body, to arrive (Node's `requestTimeout`). */
  requestTimeoutMs: 30_000,
  /** How long an idle keep-alive connection stays open between requests. */
  idleTimeoutMs: 5_000,
  /** Connections open at once; past it a new connection is closed at once. */
  maxConnections: 16_384,
} as const
