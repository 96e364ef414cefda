/**
 * Explicit limits, documented in docs/limits.md. HTTP body limits live with the server options;
 * these bound what one handler can put into a task.
 */
export const LIMITS = {
  /** A log line longer than this is truncated (and marked so). */
  logMessageChars: 16 * 1024,
  /** The agent's final message (`reply()`), as JSON: it is stored inline with the final status. */
  replyMessageBytes: 1024 * 1024,
  /** text, log and json artifacts are stored inline in the event log. */
  inlineArtifactBytes: 1024 * 1024,
  /** file artifacts are stored as blobs beside the log. */
  fileArtifactBytes: 64 * 1024 * 1024,
  /**
   * A file artifact this size or smaller keeps its bytes inline (A2A sends them as a `raw` part);
   * larger ones are links to the content endpoint. The engine option `inlineFileBytes` (server:
   * `artifacts.inlineFileBytes`) changes it, up to `inlineArtifactBytes`; 0 turns it off.
   */
  inlineFileBytes: 64 * 1024,
  /**
   * The chunks one streamed artifact (`ctx.artifactStream`) may have, the last included. Its text
   * is an inline artifact: `inlineArtifactBytes` bounds it in all, and it counts towards
   * `taskArtifactBytes`.
   */
  artifactChunks: 65_536,
  /**
   * The artifacts one task may store in all (file bytes and inline content): past it a handler's
   * `ctx.artifact` rejects, like the per-artifact limits. The engine option `taskArtifactBytes`
   * lowers or raises it.
   */
  taskArtifactBytes: 256 * 1024 * 1024,
  /**
   * How long an idempotency key (an A2A messageId, a Clawpedia Idempotency-Key) dedupes after the
   * task it created: a retry within it gets that task, a reuse for another request is refused;
   * past it the key is forgotten (and swept). The engine option `idempotencyWindowMs` changes it.
   */
  idempotencyWindowMs: 24 * 60 * 60 * 1000,
  /** ListTasks page sizes. */
  defaultPageSize: 50,
  maxPageSize: 100,
  /**
   * The claims recorded with a task for its handler (`ctx.caller.claims`), as JSON. Past it the
   * largest claims are left out until the rest fits: every run of the task re-reads them.
   */
  callerClaimsBytes: 8 * 1024,
  /** Events read from the store per round trip when a stream catches up. */
  eventReadBatch: 500,
  /**
   * How deep a request body may nest objects and arrays, envelope included: refused at parse time,
   * so nothing that handles an accepted input (schema checks, the store's JSON) can run out of stack.
   */
  jsonDepth: 100,
} as const
