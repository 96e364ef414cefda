/**
 * The task state machine: a superset of the Clawpedia states and A2A 1.0's TASK_STATE_*.
 * Dialects map these names to their wire spellings; nothing else in the code base invents states.
 */
export const TASK_STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'REJECTED',
] as const

export type TaskState = (typeof TASK_STATES)[number]

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'REJECTED',
])

/** Interrupted states wait for the client (input) or for credentials; the task resumes to WORKING. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['INPUT_REQUIRED', 'AUTH_REQUIRED'])

export const isTerminal = (state: TaskState): boolean => TERMINAL_STATES.has(state)

export const isTaskState = (value: unknown): value is TaskState =>
  typeof value === 'string' && (TASK_STATES as readonly string[]).includes(value)

/**
 * Allowed transitions. Terminal states have none: that is what "final" means, and the store
 * enforces it in the same transaction that writes the event.
 * SUBMITTED may fail directly (e.g. the agent was removed before the task ran), and may be
 * rejected or cancelled before a handler ever saw it.
 */
export const TRANSITIONS: Readonly<Record<TaskState, ReadonlySet<TaskState>>> = {
  SUBMITTED: new Set(['WORKING', 'FAILED', 'CANCELLED', 'REJECTED']),
  WORKING: new Set(['INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED']),
  INPUT_REQUIRED: new Set(['WORKING', 'FAILED', 'CANCELLED']),
  AUTH_REQUIRED: new Set(['WORKING', 'FAILED', 'CANCELLED']),
  COMPLETED: new Set(),
  FAILED: new Set(),
  CANCELLED: new Set(),
  REJECTED: new Set(),
}

export const canTransition = (from: TaskState, to: TaskState): boolean => TRANSITIONS[from].has(to)
