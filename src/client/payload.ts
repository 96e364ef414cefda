import type { JsonObject } from '../model/events.ts'
import { isObject } from '../model/json.ts'
import { ClientError } from './errors.ts'
import type { OutgoingMessage, SendPayload } from './types.ts'

/** What `send()` and `provideInput()` accept: an input object, `{ text }`, or `{ message }`. */
export type SendInput = JsonObject | { text: string } | { message: OutgoingMessage }

/**
 * Tells the three forms apart: an object whose only key is `text` (a string) is a text, one whose
 * only key is `message` (with parts) is a message, anything else is the input object. `as: 'input'`
 * forces an object to be taken as input (for an agent whose input really is `{ text }`).
 */
export const payloadOf = (given: SendInput, as?: 'input'): SendPayload => {
  const value: unknown = given
  if (!isObject(value))
    throw new ClientError('INVALID_REQUEST', 'the input must be a JSON object, { text } or { message }')
  const keys = Object.keys(value)
  if (as !== 'input' && keys.length === 1) {
    if (keys[0] === 'text' && typeof value.text === 'string') return { text: value.text }
    if (keys[0] === 'message' && isObject(value.message) && Array.isArray(value.message.parts)) {
      return { message: value.message as unknown as OutgoingMessage }
    }
  }
  return { input: value as JsonObject }
}
