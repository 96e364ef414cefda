import { isTerminal, type TaskState } from '../model/states.ts'

/**
 * The rule behind the `run_pending` column, written once: a task needs a run while it is
 * SUBMITTED or WORKING. Appends decide the column in JS (they hold the folded task); releasing a
 * lease does not read the row, so it decides in SQL with RUNNABLE_SQL, generated from the same list.
 */
export const RUNNABLE_STATES: readonly TaskState[] = ['SUBMITTED', 'WORKING']

/** The rule on the `state` column: a boolean in PostgreSQL, 0 or 1 in SQLite. */
export const RUNNABLE_SQL = `state IN (${RUNNABLE_STATES.map((state) => `'${state}'`).join(', ')})`

/**
 * `run_pending` after an append, or undefined to leave it as it is. A terminal state ends the need
 * to run; an answer (`requestRun`) creates it; a run's last write (`release`) leaves a task that is
 * still SUBMITTED or WORKING runnable, as releasing its lease would.
 */
export const runPendingAfter = (
  state: TaskState,
  append: { requestRun: boolean; release: boolean },
): boolean | undefined => {
  if (isTerminal(state)) return false
  if (append.requestRun) return true
  if (append.release) return RUNNABLE_STATES.includes(state)
  return undefined
}
