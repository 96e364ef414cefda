import type { Artifact } from './artifacts.ts'
import type { AuthRequirement } from './caller.ts'
import type { TaskError } from './errors.ts'
import type { Message } from './parts.ts'
import type { TaskState } from './states.ts'

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'
export const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR']

export type JsonObject = Record<string, unknown>

/** A status change. Which optional fields are set depends on the state (see `fold`). */
export interface StatusEvent {
  kind: 'status'
  state: TaskState
  /** INPUT_REQUIRED / AUTH_REQUIRED: the human-readable question. */
  prompt?: string
  /** INPUT_REQUIRED: the JSON Schema the answer must satisfy (absent: the agent's input schema). */
  inputSchema?: JsonObject
  /** AUTH_REQUIRED: what the caller is asked to authorize, and where (never a credential). */
  auth?: AuthRequirement
  /** FAILED / REJECTED: why. */
  error?: TaskError
  /** COMPLETED: the validated output. */
  output?: JsonObject
  /** COMPLETED / FAILED / REJECTED: the agent's last word to the caller (A2A status.message). */
  message?: Message
  /** The id of the agent message that carries this status (A2A status.message). */
  messageId?: string
}

export interface LogEvent {
  kind: 'log'
  level: LogLevel
  message: string
}

export interface ArtifactEvent {
  kind: 'artifact'
  artifact: Artifact
}

/**
 * A piece of a streamed text artifact, appended to the text of the artifact `artifactId` opened
 * (an `artifact` event with `stream`). Its own event, not an artifact event: at token rates the
 * log holds one per token, so it carries only what the fold needs.
 */
export interface ChunkEvent {
  kind: 'chunk'
  artifactId: string
  text: string
  /** The artifact's last chunk: it is complete, and nothing is appended after it. */
  lastChunk: boolean
}

/**
 * Input to the task. The first input event is the task's input; every later one answers the
 * agent's pending question (INPUT_REQUIRED) and resumes the task.
 */
export interface InputEvent {
  kind: 'input'
  input: JsonObject
  text?: string
  /** The A2A message this input arrived in, kept as a history turn. */
  message?: Message
}

export type EventBody = StatusEvent | LogEvent | ArtifactEvent | ChunkEvent | InputEvent

/** An event as stored: `seq` is the per-task sequence (1, 2, 3 …), the SSE `id:` of every stream. */
export type TaskEvent = EventBody & { seq: number; at: string }

/**
 * The stored event for a body: a copy with its sequence number and time. Not `{ ...body, seq, at }`:
 * on Node 20's V8 an object literal that starts with a spread and goes on with more properties
 * takes a slow path (about a microsecond per property), and this runs for every event.
 */
export const stampEvent = (body: EventBody, seq: number, at: string): TaskEvent => {
  const event = Object.assign({}, body) as TaskEvent
  event.seq = seq
  event.at = at
  return event
}
