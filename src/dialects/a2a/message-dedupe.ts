import { fingerprintOf, type Idempotency } from '../../engine/idempotency.ts'
import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'
import type { Message } from '../../model/parts.ts'
import type { Task } from '../../model/task.ts'

/**
 * messageId deduplication (docs/a2a.md, "Ids"). What makes two user messages the same message:
 * everything in them but their ids — parts, role, metadata, extensions, referenceTaskIds — as read
 * from the wire, so two ProtoJSON spellings of one message are one message.
 */
const content = ({ messageId: _id, contextId: _context, taskId: _task, ...rest }: Message): object => rest

/**
 * The engine key of a message that starts a task: one agent's, one caller's (the store scopes it by
 * tenant and principal, so another caller's messageId never meets it). The contextId is part of
 * the request: the same words in another conversation are another message.
 */
export const newTaskKey = (agent: string, message: Message, contextId: string | undefined): Idempotency => ({
  key: `a2a:${agent}:${message.messageId}`,
  request: { message: content(message), contextId },
})

/**
 * A follow-up whose messageId is already in its task's history: the same message again is a retry
 * (true: the caller gets the task as it is); another message under that id is refused, rather
 * than dropped while the task is returned as if it had been taken.
 */
export const isRepeatedTurn = (task: Task, message: Message): boolean => {
  const earlier = task.history.find((turn) => turn.messageId === message.messageId)
  if (earlier === undefined) return false
  if (fingerprintOf(content(earlier)) !== fingerprintOf(content(message)))
    throw reusedMessageId(message.messageId, `is already in the history of task ${task.id}`)
  return true
}

/** The engine's IDEMPOTENCY_CONFLICT in A2A terms: the key it means is the messageId. */
export const asReusedMessageId =
  (messageId: string) =>
  (error: unknown): never => {
    if (isSwitchboardError(error) && error.code === 'IDEMPOTENCY_CONFLICT')
      throw reusedMessageId(messageId, 'was already used by this caller')
    throw error
  }

const reusedMessageId = (messageId: string, where: string): SwitchboardError => {
  const description = `messageId ${JSON.stringify(messageId)} ${where} for a different message; a new message needs a new messageId`
  return new SwitchboardError('IDEMPOTENCY_CONFLICT', description, {
    messageId,
    violations: [{ field: '/message/messageId', description }],
  })
}
