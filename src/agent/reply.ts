import type { JsonObject } from '../model/events.ts'
import type { Part } from '../model/parts.ts'

/** What a reply says: at least one of `text`, `data`, `parts`. */
export interface ReplyContent {
  /** A text part, the message's first. */
  text?: string
  /** A data part: any JSON value. */
  data?: unknown
  /** More parts, after those (`text()`, `data()`, `file()` build them). */
  parts?: Part[]
  /**
   * The task's output object as well, checked against the agent's output schema (A2A: the
   * `output` artifact; Clawpedia: `output`). With it, the message is the final status message of a
   * task with an output; without it, the message is the answer itself.
   */
  output?: JsonObject
}

/** What a failure may say besides its error: the message, without an output. */
export type FailureReply = string | Omit<ReplyContent, 'output'>

/** Recognises replies from any copy of this package (an agent module may load another copy). */
const REPLY = Symbol.for('switchboard.reply')

/**
 * The agent's last word to the caller: the status message of the task's final state. Returned by
 * a handler (`return reply('Done.')`), or carried by an `AgentError` / `TaskRejection`.
 */
export class Reply {
  readonly parts: readonly Part[]
  readonly output: JsonObject | undefined
  readonly [REPLY] = true

  constructor(parts: readonly Part[], output: JsonObject | undefined) {
    this.parts = parts
    this.output = output
  }
}

const PART_MEMBER = { text: 'text', data: 'data', url: 'url', raw: 'raw' } as const

const checkPart = (part: unknown, index: number): Part => {
  const kind = (part as Part | null)?.kind
  const member = typeof kind === 'string' && Object.hasOwn(PART_MEMBER, kind) ? PART_MEMBER[kind] : undefined
  if (member === undefined || typeof part !== 'object')
    throw new TypeError(`reply() parts[${index}] is not a part: build it with text(), data() or file()`)
  const value = (part as Record<string, unknown>)[member]
  if (member !== 'data' && typeof value !== 'string')
    throw new TypeError(`reply() parts[${index}] (${kind}) needs a string ${member}`)
  if (member === 'data' && value === undefined) throw new TypeError(`reply() parts[${index}] has no data`)
  return part as Part
}

/**
 * Builds the agent's message to the caller. `reply('text')` is one text part; an object may give
 * `text`, `data` and more `parts` (in that order), and the task's `output`.
 *
 * A handler that returns a reply without an output, having made no other call (no log, artifact
 * or question), answers with that message alone: A2A SendMessage returns it as a Message, not a
 * Task (the task is still recorded, COMPLETED with the message as its status message); Clawpedia
 * shows a COMPLETED task whose output is `{ text, data }`.
 */
export const reply = (content: string | ReplyContent): Reply => {
  if (typeof content === 'string')
    return new Reply(checkedParts([{ kind: 'text', text: content }]), undefined)
  if (typeof content !== 'object' || content === null)
    throw new TypeError('reply() takes a text or { text?, data?, parts?, output? }')
  const parts: Part[] = []
  if (content.text !== undefined) {
    if (typeof content.text !== 'string') throw new TypeError('reply() text must be a string')
    parts.push({ kind: 'text', text: content.text })
  }
  if (content.data !== undefined)
    parts.push({ kind: 'data', data: content.data, mediaType: 'application/json' })
  if (content.parts !== undefined) {
    if (!Array.isArray(content.parts)) throw new TypeError('reply() parts must be an array of parts')
    parts.push(...content.parts.map(checkPart))
  }
  const { output } = content
  if (output !== undefined && (typeof output !== 'object' || output === null || Array.isArray(output)))
    throw new TypeError('reply() output must be a JSON object')
  return new Reply(checkedParts(parts), output)
}

const checkedParts = (parts: Part[]): Part[] => {
  if (parts.length === 0) throw new TypeError('reply() needs some content: text, data or parts')
  return parts
}

/** The reply a failure carries (`AgentError`'s `reply` option): a message without an output. */
export const failureReply = (content: FailureReply | undefined): Reply | undefined => {
  if (content === undefined) return undefined
  if (typeof content === 'object' && content !== null && 'output' in content)
    throw new TypeError('a failure has no output: give its reply text, data or parts')
  return reply(content)
}

/** The reply `value` is, from any copy of this package; undefined for anything else. */
export const asReply = (value: unknown): Reply | undefined =>
  typeof value === 'object' && value !== null && (value as Reply)[REPLY] === true
    ? (value as Reply)
    : undefined
