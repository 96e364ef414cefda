import type { Artifact } from './artifacts.ts'
import type { AuthRequirement, CallerIdentity } from './caller.ts'
import type { TaskError } from './errors.ts'
import type { JsonObject } from './events.ts'
import type { Message, Metadata } from './parts.ts'
import type { TaskState } from './states.ts'

/**
 * Which tasks a store call may see: a tenant's, and of those one owner's. Without `owner` every
 * task of the tenant (a caller with a tenant-wide scope); a task's own tenant and owner, which
 * every task is born with, are an `Owner`.
 */
export interface Scope {
  tenant: string
  owner?: string
}

/** One principal in one tenant: the owner of the tasks it creates. */
export type Owner = Required<Scope>

export const DEFAULT_SCOPE: Owner = Object.freeze({ tenant: 'default', owner: 'default' })

/** What a task is born with; never changes afterwards. */
export interface TaskHeader {
  id: string
  tenant: string
  owner: string
  /** The slug of the agent that runs the task. */
  agent: string
  contextId: string
  createdAt: string
  metadata?: Metadata
  /**
   * Who created the task, as authenticated then (`ctx.caller` on every run, replays included).
   * Absent when it says no more than `tenant` and `owner` (an anonymous caller, or a task created
   * before callers were recorded): see `creatorOf`.
   */
  caller?: CallerIdentity
  /**
   * The A2A extensions the creating request activated (`ctx.extensions` on every run). Absent
   * when none were.
   */
  extensions?: string[]
  /**
   * The W3C trace context of the request that created the task, when it was traced: the parent of
   * the task's span and the link a resumed run makes back to it. Kept with the task, never sent on
   * any wire (it is ours, not the caller's, unlike `metadata`).
   */
  traceContext?: TraceContext
}

/** A W3C trace context as its two headers carry it. */
export interface TraceContext {
  traceparent: string
  tracestate?: string
}

/** An answer to the agent's question, as recorded. */
export interface Answer {
  input: JsonObject
  text?: string
  /** The id of the message it came in (A2A); absent when it came without one (Clawpedia). */
  messageId?: string
}

/** The task: `fold(header, events)`. The store keeps it as a cache for fast reads. */
export interface Task extends TaskHeader {
  state: TaskState
  /** When the current state was entered (A2A status.timestamp; ListTasks order). */
  statusAt: string
  updatedAt: string
  /** The sequence of the last event folded in. */
  version: number
  input: JsonObject
  text?: string
  /** Answers to the agent's questions, in order. */
  answers: Answer[]
  prompt?: string
  inputSchema?: JsonObject
  /** AUTH_REQUIRED: what the agent asked the caller to authorize. */
  auth?: AuthRequirement
  output?: JsonObject
  error?: TaskError
  /** The id of the agent message carrying the current status, if any. */
  statusMessageId?: string
  /** COMPLETED / FAILED / REJECTED: the agent's final message to the caller, when it gave one. */
  statusMessage?: Message
  artifacts: Artifact[]
  /** Conversation turns: user messages as received, agent prompts and final messages as sent. */
  history: Message[]
  /** How many log events the handler has emitted (replay position). */
  logCount: number
}
