import type { JsonObject } from '../model/events.ts'
import type { TaskContext } from './context.ts'
import { type FailureReply, failureReply, type Reply } from './reply.ts'

/** An A2A skill. When an agent lists none, one is derived from its name and capabilities. */
export interface AgentSkill {
  id: string
  name: string
  description: string
  tags: string[]
  examples?: string[]
  inputModes?: string[]
  outputModes?: string[]
}

/** What an agent's Extended Agent Card adds to its public card, for authenticated callers only. */
export interface ExtendedCard {
  /** Skills listed after the public ones. */
  skills?: AgentSkill[]
  /** Replaces the public description. */
  description?: string
}

/**
 * An A2A extension the agent supports (AgentExtension in its card's capabilities). A client
 * activates it per request with the `A2A-Extensions` header; the handler sees the ones the
 * request that created its task activated (`ctx.extensions`).
 */
export interface AgentExtension {
  /** The extension's identity: an absolute URI, versioned (a breaking change is a new URI). */
  uri: string
  description?: string
  /** Clients must activate it: a message without it is refused (ExtensionSupportRequiredError). */
  required?: boolean
  /** The extension's own configuration, as its specification defines it. */
  params?: JsonObject
}

export interface NotificationConfig {
  endpointUrl: string
  /** One header line, e.g. "Authorization: Bearer …" (the Clawpedia `auth_header`). */
  authHeader?: string
}

export interface AgentSpec<I extends JsonObject = JsonObject, O extends JsonObject = JsonObject> {
  /** The stable agent_id (a UUID). */
  id: string
  /** URL segment under /agents/; derived from `name` when absent. */
  slug?: string
  /** display_name / A2A name. */
  name: string
  /** At least ten characters (the Clawpedia card schema). */
  description: string
  /** The agent's own version (A2A AgentCard.version). */
  version?: string
  provider?: { organization: string; url: string }
  documentationUrl?: string
  /** Clawpedia capability tags; also the tags of the derived A2A skill. */
  capabilities?: string[]
  skills?: AgentSkill[]
  /**
   * An A2A Extended Agent Card (GetExtendedAgentCard): the public card plus these, served to
   * authenticated callers. Declared on the card only when the server authenticates callers.
   */
  extendedCard?: ExtendedCard
  /** JSON Schema (draft-07) of the input object. */
  inputSchema: JsonObject
  /** JSON Schema of the output; a handler returning something else fails with OUTPUT_SCHEMA_VIOLATION. */
  outputSchema?: JsonObject
  /** How a text-only A2A message becomes input. Without it, text reaches the handler as `ctx.text`. */
  fromText?: (text: string) => I
  /** Media types accepted in message parts (A2A defaultInputModes). */
  inputModes?: string[]
  outputModes?: string[]
  /** A2A capabilities.pushNotifications (default true); false refuses A2A push-config operations. */
  pushNotifications?: boolean
  /**
   * A2A capabilities.streaming (default true); false refuses SendStreamingMessage and
   * SubscribeToTask (UnsupportedOperation). The Clawpedia task stream is served either way.
   */
  streaming?: boolean
  /** A2A extensions the agent supports, listed in its card (capabilities.extensions). */
  extensions?: AgentExtension[]
  /**
   * The handler may answer a new message with a direct reply (`return reply(…)` before any other
   * call). A2A SendStreamingMessage and a non-blocking SendMessage (`returnImmediately`) then wait
   * for the handler's first move: a direct reply is answered as a Message (a stream of that one
   * message); anything else (a log line, an artifact, a question, an output) as the Task, and the
   * stream goes on from there. Without it those two answer with the Task at once, and only a
   * blocking SendMessage answers a direct reply with its Message.
   */
  directReplies?: boolean
  /** Re-run the handler after a crash instead of failing the task with AGENT_INTERRUPTED. */
  retryable?: boolean
  /** The most tasks of this agent one replica runs at once. */
  concurrency?: number
  /** Default Clawpedia push target; deployments usually set it in configuration instead. */
  notification?: NotificationConfig
  /**
   * Returns the output object; nothing (no output); or `reply(…)`, the agent's message to the
   * caller (with an output, or as the whole answer).
   */
  handler: (input: I, ctx: TaskContext) => Promise<O | Reply | undefined> | O | Reply | undefined
}

/** A validated agent, ready to host. */
export type AgentDefinition = Readonly<AgentSpec<JsonObject, JsonObject> & { slug: string; version: string }>

const slugify = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/

/** Declares an agent. Checks what can be checked without a server; the card schema is checked at start-up. */
export const defineAgent = <I extends JsonObject, O extends JsonObject>(
  spec: AgentSpec<I, O>,
): AgentDefinition => {
  const slug = spec.slug ?? slugify(spec.name)
  if (!SLUG.test(slug)) {
    throw new TypeError(
      `agent "${spec.name}": slug "${slug}" must match ${SLUG} (lowercase letters, digits, dashes)`,
    )
  }
  if (typeof spec.handler !== 'function')
    throw new TypeError(`agent "${spec.name}": handler must be a function`)
  if (spec.extensions !== undefined) checkExtensions(spec.name, spec.extensions)
  return Object.freeze({ ...spec, slug, version: spec.version ?? '1.0.0' }) as unknown as AgentDefinition
}

/**
 * Extension URIs travel in one comma-separated header, so one with a comma or white space could
 * never be activated; a URI declared twice would make "required" ambiguous.
 */
const checkExtensions = (agent: string, extensions: readonly AgentExtension[]): void => {
  if (!Array.isArray(extensions)) throw new TypeError(`agent "${agent}": extensions must be an array`)
  const seen = new Set<string>()
  for (const extension of extensions) {
    const uri: unknown = extension?.uri
    if (typeof uri !== 'string' || !URL.canParse(uri) || /[\s,]/.test(uri))
      throw new TypeError(
        `agent "${agent}": extension uri ${JSON.stringify(uri)} must be an absolute URI without commas or spaces`,
      )
    if (seen.has(uri)) throw new TypeError(`agent "${agent}": extension ${uri} is declared twice`)
    seen.add(uri)
    const { params } = extension
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
      throw new TypeError(`agent "${agent}": extension ${uri}: params must be a JSON object`)
  }
}

/**
 * Marks agent errors for the engine, which cannot use `instanceof`: an agent module may load another
 * copy of this package (built `dist/` beside the sources, two installs), whose classes differ.
 * The value says which kind; `Symbol.for` is the same symbol in every copy.
 */
const AGENT_ERROR = Symbol.for('switchboard.agent-error')

/** What an agent error may say to the caller besides its code and message. */
export interface AgentErrorOptions {
  /**
   * The task's final status message (A2A status.message) instead of the plain error message:
   * text, data, parts. The error itself stays in the task's `error`.
   */
  reply?: FailureReply
}

/** Thrown by a handler to fail its task with exactly this code and message. */
export class AgentError extends Error {
  readonly code: string
  readonly details: Record<string, unknown> | undefined
  /** The final message for the caller, when given (else the status message is `message`). */
  readonly reply: Reply | undefined
  readonly [AGENT_ERROR]: 'error' | 'rejection' = 'error'

  constructor(code: string, message: string, details?: Record<string, unknown>, options?: AgentErrorOptions) {
    super(message)
    this.name = 'AgentError'
    this.code = code
    this.details = details
    this.reply = failureReply(options?.reply)
  }
}

/** Thrown by a handler to decline the work: the task ends REJECTED (A2A TASK_STATE_REJECTED). */
export class TaskRejection extends AgentError {
  override readonly [AGENT_ERROR] = 'rejection' as const

  constructor(message: string, code = 'REJECTED', options?: AgentErrorOptions) {
    super(code, message, undefined, options)
    this.name = 'TaskRejection'
  }
}

/** The kind of agent error `error` is, from any copy of this package; undefined for anything else. */
export const agentErrorKind = (error: unknown): 'error' | 'rejection' | undefined => {
  if (typeof error !== 'object' || error === null || typeof (error as AgentError).code !== 'string')
    return undefined
  const kind = (error as AgentError)[AGENT_ERROR]
  return kind === 'error' || kind === 'rejection' ? kind : undefined
}
