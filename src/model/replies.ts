import type { JsonObject } from './events.ts'
import { type Part, textOf } from './parts.ts'
import type { Task } from './task.ts'

/**
 * A message as one JSON object, `{ text?, data? }`: its text parts joined by newlines, and the
 * value of its first data part. Where only an object fits a message — the Clawpedia `output` of a
 * task the agent answered with a message, the output schema check of such an answer — this is
 * what stands for it, on the server and in the client alike. File and URL parts have no place in
 * it: files belong in artifacts.
 */
export const messageJson = (parts: readonly Part[]): JsonObject => {
  const json: JsonObject = {}
  const text = textOf(parts)
  if (text !== undefined) json.text = text
  const data = parts.find((part) => part.kind === 'data')
  if (data !== undefined) json.data = data.data
  return json
}

/**
 * Whether the task is a direct reply: it COMPLETED with the agent's message and nothing else: no
 * output object, no artifact, no log line, no question asked. A2A then answers the message that
 * created it with that Message instead of the Task (SendMessageResponse `message`).
 */
export const isDirectReply = (task: Task): boolean =>
  task.state === 'COMPLETED' &&
  task.statusMessage !== undefined &&
  task.output === undefined &&
  task.artifacts.length === 0 &&
  task.answers.length === 0 &&
  task.logCount === 0
