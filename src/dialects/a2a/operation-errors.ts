import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'

/** How the A2A operations word the engine's refusals: the task id in the ErrorInfo metadata, and what to send instead. */

export const notFound = (taskId: string): SwitchboardError =>
  new SwitchboardError('TASK_NOT_FOUND', `no task ${taskId}`, { taskId })

/** The engine's not-found errors carry no id; A2A's ErrorInfo metadata should. */
export const withTaskId =
  (taskId: string) =>
  (error: unknown): never => {
    if (isSwitchboardError(error) && error.code === 'TASK_NOT_FOUND') throw notFound(taskId)
    throw error
  }

/**
 * The engine's refusals of an answer, reworded for a follow-up message: the client is told what it
 * may send instead, and the task id travels in the ErrorInfo metadata.
 */
export const refusedFollowUp =
  (taskId: string) =>
  (error: unknown): never => {
    if (isSwitchboardError(error) && error.code === 'TASK_TERMINAL') {
      const state = error.details?.state
      throw new SwitchboardError(
        'TASK_TERMINAL',
        `task ${taskId} is ${state} and takes no more messages; send a new message without taskId (with its contextId to continue the conversation)`,
        { taskId, state },
      )
    }
    if (isSwitchboardError(error) && error.code === 'TASK_NOT_AWAITING_INPUT') {
      const state = error.details?.state
      throw new SwitchboardError(
        'TASK_NOT_AWAITING_INPUT',
        `task ${taskId} is ${state} and is not waiting for input; a follow-up message is only accepted in INPUT_REQUIRED or AUTH_REQUIRED`,
        { taskId, state },
      )
    }
    return withTaskId(taskId)(error)
  }
