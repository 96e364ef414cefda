import type { AnswerMessage } from '../agent/context.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { JsonObject } from '../model/events.ts'
import type { Message } from '../model/parts.ts'
import type { Answer } from '../model/task.ts'
import type { HostedAgent } from './registry.ts'

/** The input object of a request: explicit, or derived from text, then validated. */
export const resolveInput = (
  agent: HostedAgent | undefined,
  input: JsonObject | undefined,
  text: string | undefined,
  validate: HostedAgent['validateInput'],
  root: string,
): JsonObject => {
  let value: JsonObject = input ?? {}
  if (input === undefined && text !== undefined && agent?.definition.fromText) {
    try {
      value = agent.definition.fromText(text)
    } catch (error) {
      throw new SwitchboardError(
        'INPUT_SCHEMA_VIOLATION',
        `the text could not be read as input: ${(error as Error).message}`,
      )
    }
  }
  const violations = validate(value, root)
  if (violations.length > 0) {
    throw new SwitchboardError(
      'INPUT_SCHEMA_VIOLATION',
      `input does not conform to the schema: ${violations.map((v) => v.description).join('; ')}`,
      { violations },
    )
  }
  return value
}

/**
 * The input an answer carries. A text answer (no data part) to a question with its own schema is
 * `{ text }`: what a Clawpedia caller sends for the same answer (and what the client sends it), so
 * one schema serves both. A question under the agent's input schema reads text as a new task does.
 */
export const answerInput = (
  request: { input?: JsonObject; text?: string },
  task: { inputSchema?: JsonObject },
): JsonObject | undefined =>
  request.input ??
  (task.inputSchema !== undefined && request.text !== undefined ? { text: request.text } : undefined)

/**
 * What `ask` resolves with: the recorded answer with the message it came in. An answer without one
 * (Clawpedia) reads as the message a client sends over A2A for that input: `{ text }` alone as a
 * text part, anything else as a data part.
 */
export const answerMessage = (answer: Answer, history: readonly Message[]): AnswerMessage => {
  const id = answer.messageId
  const message = id === undefined ? undefined : history.find((m) => m.role === 'user' && m.messageId === id)
  const result: AnswerMessage = { ...answer, parts: [] }
  if (message) {
    result.parts = message.parts
    const data = message.parts.find((part) => part.kind === 'data')
    if (data) result.data = data.data
    return result
  }
  const { input } = answer
  const keys = Object.keys(input)
  if (keys.length === 1 && typeof input.text === 'string') {
    result.text ??= input.text
    result.parts = [{ kind: 'text', text: input.text }]
  } else {
    result.data = input
    result.parts = [{ kind: 'data', data: input, mediaType: 'application/json' }]
  }
  return result
}
