import type { Artifact } from '../model/artifacts.ts'
import type { AuthRequirement, CallerIdentity } from '../model/caller.ts'
import type { JsonObject } from '../model/events.ts'
import type { Message, Part } from '../model/parts.ts'
import type { Answer } from '../model/task.ts'

/** What the server gives the engine to serve `ctx.fetchFile` (the guarded fetch in `outbound/`). */
export type FileFetcher = (
  url: string,
  options: { maxBytes?: number; signal: AbortSignal },
) => Promise<FetchedFile>

export interface FetchedFile {
  url: string
  mediaType: string | undefined
  bytes: Uint8Array
}

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error'

interface ArtifactCommon {
  /** A short name (A2A Artifact.name). */
  name?: string
  description?: string
}

/** What a handler may publish: the five Clawpedia artifact types. File bytes are stored by the server. */
export type ArtifactSpec = ArtifactCommon &
  (
    | { type: 'text'; text: string; mediaType?: string }
    | { type: 'log'; text: string }
    | { type: 'json'; value: unknown }
    | { type: 'url'; url: string; mediaType?: string; filename?: string }
    | { type: 'file'; filename: string; mediaType: string; bytes: Uint8Array | string }
  )

/** What `ctx.artifactStream` opens: a text artifact written piece by piece (a model's tokens). */
export interface ArtifactStreamSpec extends ArtifactCommon {
  /** Streams are text; the field is there so a spec reads like `ctx.artifact`'s. */
  type?: 'text'
  mediaType?: string
}

/**
 * An open streamed artifact. Each piece is an event of its own, durable before anyone sees it and
 * streamed as it comes (A2A: an artifactUpdate with `append`; Clawpedia: an `artifact.update`
 * frame with the piece); the task shows the text so far. Calls resolve once accepted, as `log`
 * does, and reject past the limits (docs/limits.md) or once the task is over.
 */
export interface ArtifactStream {
  /** The artifact's id (A2A artifactId). */
  readonly id: string
  /** Appends a piece of text. An empty piece writes nothing. */
  append(text: string): Promise<void>
  /**
   * Appends the last piece (or none): the artifact is complete (A2A `lastChunk`). A stream left
   * open when the handler returns or fails is ended with the task's outcome; one left open by a
   * question (`ask`) goes on when the handler runs again.
   */
  end(text?: string): Promise<void>
}

/**
 * What answered a question (`ask`, `requireAuth`): the caller's message, and the input object it
 * carries. An A2A answer is the follow-up message as sent; a Clawpedia answer (`POST
 * /tasks/{id}/input`, no message) reads as the message the client would have sent over A2A: a
 * `{ "text": … }` input as one text part, any other input as one data part.
 */
export interface AnswerMessage extends Answer {
  /** The message's parts, as sent. */
  parts: Part[]
  /** The value of its data part, if it has one. */
  data?: unknown
}

/** What `ctx.requireAuth` asks the caller to do. */
export interface AuthRequest extends AuthRequirement {
  /**
   * What to do, for a person: the task's status message, e.g. "Authorize access to your calendar
   * at https://…". A `url` it does not mention is appended, so every dialect shows it.
   */
  message: string
}

/**
 * What a handler receives besides its input.
 *
 * Durable replay: when a task resumes (an answer arrived, or the server restarted), the handler
 * runs again from the start. `ask` returns the answers already recorded, in order, and suspends at
 * the first unanswered question; `log`, `artifact` and `artifactStream` calls (and a stream's
 * pieces) already recorded by earlier runs are recognised by their position and not emitted
 * twice. So a handler must make the same calls in the same order for the same input and answers:
 * keep side effects after the last `ask`, or make them idempotent. `requireAuth` replays like
 * `ask`: both are questions, answered in order.
 */
export interface TaskContext {
  readonly taskId: string
  readonly contextId: string
  /** Aborted when the task is cancelled, when the server shuts down, or when the run loses its lease. */
  readonly signal: AbortSignal
  /** The text parts of the message that created the task, when it came from A2A. */
  readonly text: string | undefined
  /** The A2A message that created the task, if any. */
  readonly message: Message | undefined
  /**
   * Who created the task, as authenticated then: the same on every run, replays and restarts
   * included. `ANONYMOUS`-like (`method: 'none'`) when authentication is off. Claims are verified
   * claims, never a credential, and bounded (docs/limits.md). A handler may refuse the caller by
   * throwing `TaskRejection` or `AgentError`.
   */
  readonly caller: CallerIdentity
  /**
   * The A2A extensions the request that created the task activated (its `A2A-Extensions` header,
   * among those the agent declares), in the agent's declaration order; empty when none were, and
   * for a task created over Clawpedia. The same on every run, replays and restarts included.
   */
  readonly extensions: readonly string[]
  /**
   * Appends a log line to the task (streamed as a `log` event). Resolves once accepted: see
   * `artifact` for what that promises.
   */
  log(level: LogLevelName, message: string): Promise<void>
  /**
   * Publishes an artifact. Resolves once accepted, usually at once: the run's writes are committed
   * in call order, in batches, each before anyone (a stream, a GET, a webhook) can see it, and all
   * before the task's outcome. If the task was cancelled or the run lost its lease, it rejects and
   * `signal` aborts. A file artifact resolves once its bytes are stored; a handler that queues
   * hundreds of writes faster than the store commits them waits for them.
   */
  artifact(spec: ArtifactSpec): Promise<Artifact>
  /**
   * Opens a text artifact to write piece by piece (see ArtifactStream). It takes its place among
   * the task's artifacts at once, empty. On a replay it is recognised by position like `artifact`,
   * and so are its pieces: those already recorded are not written again.
   */
  artifactStream(spec?: ArtifactStreamSpec): Promise<ArtifactStream>
  /**
   * Asks the client for more input: the task goes INPUT_REQUIRED with `prompt`. Resolves with the
   * answering message once it arrives: its `text`, `parts`, `data` and `messageId`, and `input`,
   * the object validated against `schema` (or the agent's input schema). A text answer (no data
   * part) to a question with a `schema` is the input `{ text }`, as a Clawpedia caller would send
   * it; so `ask(prompt, { schema: { type: 'object' } })` takes any answer, text included.
   */
  ask(prompt: string, options?: { schema?: JsonObject }): Promise<AnswerMessage>
  /**
   * Asks the caller to authorize something this agent needs (e.g. its calendar, through the
   * agent's own OAuth flow): the task goes AUTH_REQUIRED with `message`, and resumes when the
   * caller reports the step done with a follow-up message (any JSON object as input). Resolves
   * with that answer. The credential itself never comes through it: the agent receives it out of
   * band (its OAuth callback, a secret store) and must not read one from the answer.
   */
  requireAuth(request: AuthRequest): Promise<AnswerMessage>
  /**
   * Downloads a file (e.g. a URL the client sent) through the server's outbound policy: private,
   * loopback and metadata addresses are refused before connecting, and the size is capped.
   */
  fetchFile(url: string, options?: { maxBytes?: number }): Promise<FetchedFile>
}
