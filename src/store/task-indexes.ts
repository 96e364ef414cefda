import { TERMINAL_STATES } from '../model/states.ts'

/**
 * Task states as SQL both backends share, generated from the model's terminal states. A query and
 * its partial index use the same predicate, word for word, so the planner reads the index.
 */
const TERMINAL_LIST = [...TERMINAL_STATES].map((state) => `'${state}'`).join(', ')

export const OPEN_SQL = `state NOT IN (${TERMINAL_LIST})`

/** The finished tasks retention may delete: the tasks_finished index's predicate, word for word. */
export const FINISHED_SQL = `state IN (${TERMINAL_LIST})`

/**
 * The partial indexes behind the open-task count and retention's search, each made only by a server
 * that uses it (see `prepareIndex` in the store contract): an index costs every task write.
 */
const INDEXES = {
  'open-tasks': { name: 'tasks_open', columns: '(tenant, owner)', where: OPEN_SQL },
  'finished-tasks': { name: 'tasks_finished', columns: '(status_at)', where: FINISHED_SQL },
} as const

export type OnDemandIndex = keyof typeof INDEXES

export const onDemandIndexSql = (
  index: OnDemandIndex,
  table: string,
  options: { concurrently?: boolean } = {},
): string => {
  const { name, columns, where } = INDEXES[index]
  return `CREATE INDEX ${options.concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${name} ON ${table} ${columns} WHERE ${where}`
}
