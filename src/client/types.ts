import type { TaskError } from '../model/errors.ts'
import type { JsonObject, LogLevel } from '../model/events.ts'
import type { Metadata, Part } from '../model/parts.ts'
import type { TaskState } from '../model/states.ts'

/** The ways to talk to an agent: the three A2A 1.0 bindings and the Clawpedia task protocol. */
export type InterfaceKind = 'jsonrpc' | 'rest' | 'grpc' | 'clawpedia'
/** Every kind, in the default order of preference (the HTTP bindings first: they need no other port). */
export const INTERFACE_KINDS: readonly InterfaceKind[] = ['jsonrpc', 'rest', 'grpc', 'clawpedia']

export type Dialect = 'clawpedia' | 'a2a'

/** Every call takes these: cancel it, or bound it in time. */
export interface CallOptions {
  signal?: AbortSignal
  /** Milliseconds until the call fails with TIMEOUT (streams: until the response head arrives). */
  timeoutMs?: number
}

interface ArtifactCommon {
  id: string
  name?: string
  description?: string
  createdAt?: string
}

/**
 * An artifact as either dialect shows it, in the model's five types. A2A `url` and `raw` parts
 * are files (by reference or inline, base64); a Clawpedia `file` is a URL to its content.
 */
export type RemoteArtifact = ArtifactCommon &
  (
    | { type: 'text'; text: string; mediaType?: string }
    | { type: 'log'; text: string }
    | { type: 'json'; value: unknown }
    | { type: 'url'; url: string; mediaType?: string; filename?: string }
    | { type: 'file'; url?: string; raw?: string; mediaType?: string; filename?: string }
  )

/** A message from the agent: a task's status message, or a direct reply. */
export interface RemoteMessage {
  messageId: string
  /** Its text parts, joined by newlines. */
  text?: string
  /** The value of its first data part. */
  data?: unknown
  parts: Part[]
}

/** A direct answer (an A2A Message instead of a Task): there is no task to follow. */
export type RemoteReply = RemoteMessage

/** A task as the client sees it, whichever dialect carried it; states use the model's names. */
export interface RemoteTask {
  id: string
  dialect: Dialect
  state: TaskState
  contextId?: string
  /** Clawpedia: the input the task was created with. */
  input?: JsonObject
  /**
   * COMPLETED: the output object (A2A: the data part of the artifact named "output"; without one,
   * the agent's final message as `{ text, data }`, as Clawpedia shows it).
   */
  output?: JsonObject
  /** INPUT_REQUIRED / AUTH_REQUIRED: the agent's question, and the schema of the answer if given. */
  prompt?: string
  inputSchema?: JsonObject
  /** FAILED / REJECTED: why. */
  error?: TaskError
  /**
   * The status message of the current state, whatever the state: the question, the failure, a
   * progress note, the agent's final message.
   */
  message?: RemoteMessage
  /** The artifacts known so far (A2A tasks carry them; Clawpedia ones are listed separately). */
  artifacts?: RemoteArtifact[]
  createdAt?: string
  /** When the current status was recorded. */
  updatedAt?: string
  /** Set when the agent answered with a message rather than a task. */
  reply?: RemoteReply
  /**
   * A2A: the extensions the agent activated for the message this was the answer to (its
   * `A2A-Extensions` echo), on what `send` and `provideInput` return; absent when none.
   */
  extensions?: string[]
}

/**
 * One piece of a streamed text artifact (A2A `append`, a Clawpedia `artifact.update` frame with
 * `append`): the text it added, and whether it completed the artifact (A2A `lastChunk`).
 */
export interface ArtifactChunk {
  text: string
  last: boolean
}

/**
 * What `TaskHandle.events()` yields: a discriminated union on `type`; `id` is the stream's event id.
 * An update of a streamed artifact has `chunk`, the piece it appended; `artifact` is then the
 * artifact reassembled so far.
 */
export type TaskUpdate =
  | { type: 'status'; task: RemoteTask; id?: string }
  | { type: 'log'; level: LogLevel; message: string; at: string; id?: string }
  | { type: 'artifact'; artifact: RemoteArtifact; chunk?: ArtifactChunk; id?: string }

/** A message to send, in the model's part shapes (`text()`, `data()`, `file()` build parts). */
export interface OutgoingMessage {
  parts: Part[]
  messageId?: string
  contextId?: string
  referenceTaskIds?: string[]
  metadata?: Metadata
}

/** What a task is sent: an input object, a text, or a whole message. */
export type SendPayload = { input: JsonObject } | { text: string } | { message: OutgoingMessage }

/** A webhook the agent should notify about the task (A2A: taskPushNotificationConfig). */
export interface PushRegistration {
  url: string
  /** `Authorization: <scheme> <credentials>` on every notification. */
  authentication?: { scheme: string; credentials?: string }
  token?: string
}

export interface SendRequest {
  payload: SendPayload
  contextId?: string
  /** Makes a repeated send (a retry, a failover) create one task. */
  idempotencyKey: string
  push?: PushRegistration
  metadata?: Metadata
}

export interface ListQuery {
  state?: TaskState
  contextId?: string
  pageSize?: number
  pageToken?: string
  includeArtifacts?: boolean
}

export interface TaskPage {
  tasks: RemoteTask[]
  nextPageToken: string
}

/**
 * One decoded stream item, protocol-neutral. `task` is a whole task: a Clawpedia status frame
 * (a state change) or an A2A snapshot (the state now, possibly one already seen). Clawpedia
 * announces artifacts by id only (`artifact-ref`), so they are fetched.
 */
export type WireItem =
  | { kind: 'task'; task: RemoteTask; snapshot: boolean }
  | {
      kind: 'status'
      state: TaskState
      at?: string
      prompt?: string
      inputSchema?: JsonObject
      error?: TaskError
      message?: RemoteMessage
    }
  | { kind: 'log'; level: LogLevel; message: string; at: string }
  | {
      kind: 'artifact'
      artifact: RemoteArtifact
      /** A piece to append to the artifact with this id, rather than the artifact (or its start). */
      append?: boolean
      lastChunk?: boolean
      output?: JsonObject
    }
  | { kind: 'artifact-ref'; artifactId: string }
  | { kind: 'ping' }

export interface StreamFrame {
  /** The SSE `id:` (our servers: the task's event sequence). */
  id?: string
  item: WireItem
}

export interface StreamOptions {
  /** Resume after this event id (sent as Last-Event-ID). */
  lastEventId?: string
  signal: AbortSignal
  /** No byte for this long means the connection is dead. */
  idleMs: number
  timeoutMs?: number
}

/** One interface of an agent: the operations the task API needs, in one dialect and binding. */
export interface Transport {
  readonly kind: InterfaceKind
  readonly dialect: Dialect
  readonly url: string
  /** Whether the agent streams (A2A capabilities.streaming; Clawpedia always does). */
  readonly streaming: boolean
  /** A2A: set for an interface of an older version than 1.0 ('0.3'), which the client speaks as a fallback. */
  readonly a2aVersion?: string
  send(request: SendRequest, call: CallOptions): Promise<RemoteTask>
  get(taskId: string, call: CallOptions): Promise<RemoteTask>
  cancel(taskId: string, call: CallOptions): Promise<RemoteTask>
  provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask>
  artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]>
  /** A2A only (Clawpedia has no list operation). */
  list?(query: ListQuery, call: CallOptions): Promise<TaskPage>
  /** Opens the task's event stream; resolves once the response head is in. */
  stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>>
}
