/**
 * What the orchestrator, the servers and the load generator agree on: the targets, the benchmark
 * agent's input, and the line a server prints once it listens.
 */

export const TARGETS = [
  'switchboard-sqlite',
  'switchboard-sqlite-traced',
  'switchboard-pg',
  'sdk-memory',
  'sdk-sqlite',
  'http-floor',
  'durable-floor',
  'store-floor',
  'fastify-store-floor',
  'pg-lifecycle-floor',
  'pg-store-floor',
] as const
export type Target = (typeof TARGETS)[number]

/**
 * Switchboard SQLite with tracing on: every span sampled, kept by a batch span processor and
 * dropped by an exporter that sends nothing, so the rows measure tracing, not a collector's I/O.
 */
export const TRACED: Target = 'switchboard-sqlite-traced'

/**
 * References, not contenders (bench/servers/floor.ts): bare node:http with just enough A2A for the
 * client, writing nothing (FLOOR, also the held streams' floor) or each task once in SQLite
 * (DURABLE_FLOOR): what an operation costs before any A2A server's own work.
 */
export const FLOOR: Target = 'http-floor'
export const DURABLE_FLOOR: Target = 'durable-floor'
/**
 * node:http writing each task as Switchboard SQLite's store does (bench/servers/floor-switchboard-store.ts):
 * between the durable floor and Switchboard SQLite, the store's guarantees apart from the protocol work.
 */
export const STORE_FLOOR: Target = 'store-floor'
/**
 * The store floor's handler served by fastify as Switchboard serves its routes (a catch-all route,
 * the body read as text): what the framework adds to each exchange before any A2A work, the part
 * of ours ÷ the store floor that is fastify's.
 */
export const FASTIFY_STORE_FLOOR: Target = 'fastify-store-floor'
/**
 * The anchor lifecycle on PostgreSQL (bench/servers/floor-pg-store.ts): the database CPU per task
 * that Switchboard PostgreSQL's is judged against.
 */
export const PG_FLOOR: Target = 'pg-lifecycle-floor'
/**
 * node:http writing each task as Switchboard PostgreSQL's store does, its bus listening
 * (bench/servers/floor-switchboard-store.ts): the database CPU of our store's writes alone, between
 * the anchor lifecycle's and Switchboard PostgreSQL's.
 */
export const PG_STORE_FLOOR: Target = 'pg-store-floor'
/** Every floor, in the order a full run measures them after the contenders. */
export const FLOORS: readonly Target[] = [
  FLOOR,
  DURABLE_FLOOR,
  STORE_FLOOR,
  FASTIFY_STORE_FLOOR,
  PG_FLOOR,
  PG_STORE_FLOOR,
]
export const isFloor = (target: Target): boolean => FLOORS.includes(target)
/** The targets that get a fresh PostgreSQL database, and whose database CPU is measured. */
export const usesPostgres = (target: Target): boolean =>
  target === 'switchboard-pg' || target === PG_FLOOR || target === PG_STORE_FLOOR

export const LABELS: Record<Target, string> = {
  'switchboard-sqlite': 'Switchboard SQLite',
  'switchboard-sqlite-traced': 'Switchboard SQLite, tracing on',
  'switchboard-pg': 'Switchboard PostgreSQL',
  'sdk-memory': 'SDK in-memory',
  'sdk-sqlite': 'SDK SQLite',
  'http-floor': 'node:http floor (no A2A)',
  'durable-floor': 'node:http + one SQLite write floor (no A2A)',
  'store-floor': "node:http + Switchboard's SQLite store floor (no A2A)",
  'fastify-store-floor': "fastify + Switchboard's SQLite store floor (no A2A)",
  'pg-lifecycle-floor': 'node:http + the PostgreSQL anchor lifecycle (no A2A)',
  'pg-store-floor': "node:http + Switchboard's PostgreSQL store floor (no A2A)",
}

export const isSwitchboard = (target: Target): boolean => target.startsWith('switchboard')

/**
 * The benchmark agent's input, the one data part of the A2A message (or the Clawpedia `input`).
 * `artifacts`: how many text artifacts (named a0, a1, …, text "chunk i") before COMPLETED.
 * `chunks`: instead, one text artifact (named `tokens`) streamed in this many appended pieces
 * (`t0 `, `t1 `, …), a model's tokens, before COMPLETED.
 * `hold`: stay WORKING until cancelled (the subscriber scenario).
 */
export interface BenchInput {
  artifacts?: number
  chunks?: number
  hold?: boolean
}

/** The most artifacts one task may ask for: the agent's loop is bounded. */
export const MAX_ARTIFACTS = 100

/** The artifacts of each `stream` task: the goals are set for this many (`--stream-artifacts` changes it). */
export const STREAM_ARTIFACTS = 10

/** A held task gives up after this long, so nothing outlives a forgotten run. */
export const HOLD_LIMIT_MS = 10 * 60_000

export const artifactCount = (input: BenchInput): number =>
  Math.max(0, Math.min(MAX_ARTIFACTS, Math.floor(input.artifacts ?? 1)))

export const artifactName = (index: number): string => `a${index}`
export const artifactText = (index: number): string => `chunk ${index}`

/** The token-streaming scenario's artifact: this many appended pieces. */
export const TOKEN_CHUNKS = 200
/** The most pieces one task may ask for: the agent's loop is bounded. */
export const MAX_CHUNKS = 1000
export const TOKENS_ARTIFACT = 'tokens'
export const tokenText = (index: number): string => `t${index} `
export const chunkCount = (input: BenchInput): number =>
  Math.max(0, Math.min(MAX_CHUNKS, Math.floor(input.chunks ?? 0)))

/** Paths under the server's base URL (the same layout for every target). */
export const JSONRPC_PATH = '/a2a/jsonrpc'
export const REST_PATH = '/a2a/rest'

export interface ServerOptions {
  target: Target
  /** A fresh directory for the SQLite file(s). */
  dataDir: string
  /** The PostgreSQL database of this run (switchboard-pg). */
  pgUrl?: string
  /**
   * The scenario sends push configs: only then does the SDK's card declare push notifications
   * (and its handler get a push store and sender), as its README sets push up.
   */
  push?: boolean
}

/** Printed on stdout, on one line, once the server accepts requests. */
export interface ReadyLine {
  /** Where the agent is served: A2A bindings at `{base}/a2a/…`, Clawpedia at `{base}/tasks`. */
  base: string
  pid: number
  /** Where the server writes its MemoryReading after each collection it is asked for (SIGUSR2). */
  memoryFile: string
}

/**
 * What a server writes after the full collection SIGUSR2 asks for. The young generation is empty
 * then, but V8 keeps its pages, as many as its allocation rate grew it to (Node 24 grows it to
 * 64 MB and more): RSS alone counts them as memory held by the streams.
 */
export interface MemoryReading {
  /** How many collections this server has made on request: the reading is this one's. */
  collections: number
  /** The young generation's resident bytes (V8's new space and new large-object space). */
  youngResidentBytes: number
}

export const READY_PREFIX = 'BENCH-READY '

/** Printed on stdout, on one line, by the load generator when it is done. */
export const RESULT_PREFIX = 'BENCH-RESULT '
