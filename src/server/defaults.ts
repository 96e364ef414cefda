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
} as const
