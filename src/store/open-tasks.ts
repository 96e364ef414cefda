import { TERMINAL_STATES } from '../model/states.ts'

/**
 * The open tasks of a principal, as SQL both backends share: not terminal, generated from the
 * model's terminal states. The count and the partial index use the same predicate, word for word,
 * so the planner reads the count from the index alone.
 */
const TERMINAL_LIST = [...TERMINAL_STATES].map((state) => `'${state}'`).join(', ')

export const OPEN_SQL = `state NOT IN (${TERMINAL_LIST})`

/** The finished tasks retention may delete: the tasks_finished index's predicate, word for word. */
export const FINISHED_SQL = `state IN (${TERMINAL_LIST})`

/** The partial index behind the count, made only for a server with an open-task cap. */
export const openTasksIndexSql = (table: string, options: { concurrently?: boolean } = {}): string =>
  `CREATE INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS tasks_open ON ${table} (tenant, owner) WHERE ${OPEN_SQL}`
