import type { TaskState } from '../../../model/states.ts'

/** The proto enum, in number order: ProtoJSON readers accept the numbers in place of the names. */
export const A2A_TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const

export type A2aTaskState = (typeof A2A_TASK_STATES)[number]

/** The one table of model state ⇄ wire name; every other direction is derived from it. */
const WIRE_NAME: Readonly<Record<TaskState, A2aTaskState>> = {
  SUBMITTED: 'TASK_STATE_SUBMITTED',
  WORKING: 'TASK_STATE_WORKING',
  INPUT_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  AUTH_REQUIRED: 'TASK_STATE_AUTH_REQUIRED',
  COMPLETED: 'TASK_STATE_COMPLETED',
  FAILED: 'TASK_STATE_FAILED',
  CANCELLED: 'TASK_STATE_CANCELED',
  REJECTED: 'TASK_STATE_REJECTED',
}

/**
 * Wire spelling → model state: the 1.0 names, and the 0.3 ones (`input-required`) that servers
 * answering a 1.0 request in the old shape still send.
 */
const MODEL_STATE = new Map<string, TaskState>(
  (Object.entries(WIRE_NAME) as [TaskState, A2aTaskState][]).flatMap(([state, name]) => [
    [name, state],
    [name.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-'), state],
  ]),
)

export const toA2aState = (state: TaskState): A2aTaskState => WIRE_NAME[state]

/** The model state of a wire state (name or enum number); undefined for UNSPECIFIED or an unknown value. */
export const fromA2aState = (value: unknown): TaskState | undefined => {
  const name = typeof value === 'number' ? A2A_TASK_STATES[value] : value
  return typeof name === 'string' ? MODEL_STATE.get(name) : undefined
}
