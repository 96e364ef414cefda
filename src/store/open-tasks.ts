import { TERMINAL_STATES } from '../model/states.ts'

/**
 * The open tasks of a principal, as SQL both backends share: not terminal, generated from the
 * model's terminal states. The count and the partial index use the same predicate, word for word,
 * so the planner reads the count from the index alone.
 */
export const OPEN_SQL = `state NOT IN (${[...TERMINAL_STATES].map((state) => `'${state}'`).join(', ')})`

/** The partial index behind the count, made only for a server with an open-task cap. */
export const openTasksIndexSql = (table: string, options: { concurrently?: boolean } = {}): string =>
  `CREATE INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS tasks_open ON ${table} (tenant, owner) WHERE ${OPEN_SQL}`
