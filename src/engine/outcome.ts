import { type AgentError, agentErrorKind } from '../agent/define.ts'
import { asReply, type Reply } from '../agent/reply.ts'
import type { TaskError } from '../model/errors.ts'
import type { EventBody, JsonObject, StatusEvent } from '../model/events.ts'
import { newId } from '../model/ids.ts'
import type { Message } from '../model/parts.ts'
import { messageJson } from '../model/replies.ts'
import { LIMITS } from './limits.ts'
import type { HostedAgent } from './registry.ts'

/**
 * How a run ends, from what its handler returned or threw: the final status. Everything the store
 * would choke on is caught here, not left to the write: the outcome is committed in one batch with
 * the handler's last calls, and an outcome that cannot be written would take them down with it.
 */

const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const failed = (error: TaskError): StatusEvent => ({ kind: 'status', state: 'FAILED', error })

/** The reply as the agent's message, or why it cannot be one (too large, not JSON). */
const agentMessage = (reply: Reply): Message | TaskError => {
  const message: Message = { messageId: newId(), role: 'agent', parts: [...reply.parts] }
  let bytes: number
  try {
    bytes = Buffer.byteLength(JSON.stringify(message))
  } catch (error) {
    return {
      code: 'AGENT_ERROR',
      message: `the agent's reply cannot be written as JSON: ${(error as Error).message}`,
    }
  }
  if (bytes > LIMITS.replyMessageBytes) {
    return {
      code: 'AGENT_ERROR',
      message: `the agent's reply is ${bytes} bytes; a reply is limited to ${LIMITS.replyMessageBytes} (publish large content as an artifact)`,
    }
  }
  return message
}

/** The output checked as the store and the agent's output schema need it; a failure, or undefined when fine. */
const outputFailure = (value: JsonObject, agent: HostedAgent, what: string): StatusEvent | undefined => {
  try {
    JSON.stringify(value)
  } catch (error) {
    return failed({
      code: 'OUTPUT_SCHEMA_VIOLATION',
      message: `the agent's ${what} cannot be written as JSON: ${(error as Error).message}`,
    })
  }
  const violations = agent.validateOutput?.(value, '/output') ?? []
  if (violations.length === 0) return undefined
  return failed({
    code: 'OUTPUT_SCHEMA_VIOLATION',
    message: `the agent's ${what} does not conform to its output schema: ${violations.map((v) => v.description).join('; ')}`,
    details: { violations },
  })
}

/**
 * What the handler returned, as the final status. An object is the output; nothing is no output
 * (the task shows none; Clawpedia's `{}` must still satisfy an output schema); a reply is the
 * final message, with its output, or, without one, the answer itself — then `{ text, data }` is
 * what Clawpedia shows as the output, and what the output schema checks.
 */
export const completion = (returned: unknown, agent: HostedAgent): StatusEvent => {
  const reply = asReply(returned)
  if (reply) {
    const message = agentMessage(reply)
    if (!('messageId' in message)) return failed(message)
    const shown = reply.output ?? messageJson(message.parts)
    const failure = outputFailure(shown, agent, reply.output ? 'output' : 'reply')
    if (failure) return failure
    const status: StatusEvent = { kind: 'status', state: 'COMPLETED', message }
    if (reply.output) status.output = reply.output
    return status
  }
  if (returned === undefined || returned === null) {
    return (
      (agent.validateOutput && outputFailure({}, agent, 'output')) || { kind: 'status', state: 'COMPLETED' }
    )
  }
  if (!isPlainObject(returned)) {
    return failed({
      code: 'OUTPUT_SCHEMA_VIOLATION',
      message: 'the agent returned an output that is not a JSON object',
    })
  }
  return outputFailure(returned, agent, 'output') ?? { kind: 'status', state: 'COMPLETED', output: returned }
}

/** What the handler threw, as the final status: an agent error's code, message and reply, else AGENT_ERROR. */
export const failure = (error: unknown): EventBody => {
  // A brand, not instanceof: the agent may have thrown another copy's AgentError.
  const kind = agentErrorKind(error)
  if (!kind) {
    const message = error instanceof Error ? error.message : String(error)
    return failed({ code: 'AGENT_ERROR', message: message || 'the agent handler failed' })
  }
  const { code, message, details } = error as AgentError
  const status: StatusEvent =
    kind === 'rejection'
      ? { kind: 'status', state: 'REJECTED', error: { code, message } }
      : failed({ code, message, ...(details && { details }) })
  const reply = asReply((error as AgentError).reply)
  // A reply that cannot be written is left out: the agent's own error says more than that would.
  const final = reply && agentMessage(reply)
  if (final && 'messageId' in final) status.message = final
  return status
}
