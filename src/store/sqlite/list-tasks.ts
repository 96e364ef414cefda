import { SwitchboardError } from '../../model/errors.ts'
import type { Scope } from '../../model/task.ts'
import { decodePageToken, encodePageToken, type ListTasksPage, type ListTasksQuery } from '../contract.ts'
import type { StatementCache } from './db.ts'
import { currentTask, SNAPSHOT_COLUMNS, type SnapshotRow } from './rows.ts'

// A parameter in a WHERE or LIMIT is `+@name`: see prepareAll.
const FILTERS = [
  // Absent for a tenant-wide scope.
  { key: 'owner', sql: 'owner = +@owner', param: 'owner' },
  { key: 'agent', sql: 'agent = +@agent', param: 'agent' },
  { key: 'contextId', sql: 'context_id = +@context_id', param: 'context_id' },
  { key: 'state', sql: 'state = +@state', param: 'state' },
  { key: 'statusAfter', sql: 'status_at >= @status_after', param: 'status_after' },
] as const

/**
 * ListTasks: newest status first (status_at desc, id desc), keyset-paginated. Each combination of
 * filters is its own statement, prepared once in the cache.
 */
export const listTasks = (
  ctx: { statements: StatementCache },
  scope: Scope,
  query: ListTasksQuery,
): ListTasksPage => {
  const values = { ...query, owner: scope.owner }
  const active = FILTERS.filter((f) => values[f.key] !== undefined)
  const filters = ['tenant = +@tenant', ...active.map((f) => f.sql)]
  const params: Record<string, unknown> = { tenant: scope.tenant, limit: query.pageSize + 1 }
  for (const filter of active) params[filter.param] = values[filter.key]
  const where = filters.join(' AND ')
  const total = ctx.statements.get(`SELECT count(*) AS n FROM tasks WHERE ${where}`).get(params) as {
    n: number
  }
  let pageWhere = where
  if (query.pageToken) {
    const cursor = decodePageToken(query.pageToken)
    if (!cursor) throw new SwitchboardError('INVALID_REQUEST', 'pageToken is not a token this server issued')
    pageWhere += ' AND (status_at < @cursor_at OR (status_at = +@cursor_at AND id < @cursor_id))'
    params.cursor_at = cursor.statusAt
    params.cursor_id = cursor.id
  }
  const rows = ctx.statements
    .get(
      `SELECT ${SNAPSHOT_COLUMNS} FROM tasks WHERE ${pageWhere} ORDER BY status_at DESC, id DESC LIMIT +@limit`,
    )
    .all(params) as SnapshotRow[]
  const tasks = rows.slice(0, query.pageSize).map((r) => currentTask(r))
  const last = tasks.at(-1)
  const nextPageToken = rows.length > query.pageSize && last ? encodePageToken(last.statusAt, last.id) : ''
  return { tasks, nextPageToken, totalSize: total.n }
}
