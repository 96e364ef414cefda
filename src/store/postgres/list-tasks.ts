import type pg from 'pg'
import { SwitchboardError } from '../../model/errors.ts'
import type { Scope, Task } from '../../model/task.ts'
import { decodePageToken, encodePageToken, type ListTasksPage, type ListTasksQuery } from '../contract.ts'
import { run, type Statement, statement } from './db.ts'

const FILTERS = [
  // Absent for a tenant-wide scope.
  { key: 'owner', sql: 'owner = :owner' },
  { key: 'agent', sql: 'agent = :agent' },
  { key: 'contextId', sql: 'context_id = :context_id' },
  { key: 'state', sql: 'state = :state' },
  { key: 'statusAfter', sql: 'status_at >= :status_after::timestamptz' },
] as const

const CURSOR = '(status_at, id) < (:cursor_at::timestamptz, :cursor_id::text)'

const isTimestamp = (value: string): boolean => !Number.isNaN(Date.parse(value))

/**
 * ListTasks: newest status first (status_at desc, id desc), keyset-paginated. Each combination of
 * filters is its own named statement, built once: a single statement with "param IS NULL OR …"
 * for every filter would leave PostgreSQL one generic plan that fits none of them.
 */
export class TaskLists {
  readonly #pool: pg.Pool
  readonly #schema: string
  readonly #statements = new Map<string, { count: Statement; page: Statement }>()

  constructor(pool: pg.Pool, quotedSchema: string) {
    this.#pool = pool
    this.#schema = quotedSchema
  }

  async list(scope: Scope, query: ListTasksQuery): Promise<ListTasksPage> {
    if (query.statusAfter !== undefined && !isTimestamp(query.statusAfter)) {
      throw new SwitchboardError('INVALID_REQUEST', 'statusAfter is not a timestamp')
    }
    const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined
    if (query.pageToken && (!cursor || !isTimestamp(cursor.statusAt))) {
      throw new SwitchboardError('INVALID_REQUEST', 'pageToken is not a token this server issued')
    }
    const active = FILTERS.filter((f) => (f.key === 'owner' ? scope.owner : query[f.key]) !== undefined)
    const { count, page } = this.#statementsFor(active, cursor !== undefined)
    const values = {
      tenant: scope.tenant,
      owner: scope.owner,
      agent: query.agent,
      context_id: query.contextId,
      state: query.state,
      status_after: query.statusAfter,
      cursor_at: cursor?.statusAt,
      cursor_id: cursor?.id,
      limit: query.pageSize + 1,
    }
    const total = await run<{ n: number }>(this.#pool, count, values)
    const { rows } = await run<{ snapshot: Task }>(this.#pool, page, values)
    const tasks = rows.slice(0, query.pageSize).map((r) => r.snapshot)
    const last = tasks.at(-1)
    const nextPageToken = rows.length > query.pageSize && last ? encodePageToken(last.statusAt, last.id) : ''
    return { tasks, nextPageToken, totalSize: total.rows[0]?.n ?? 0 }
  }

  #statementsFor(active: readonly (typeof FILTERS)[number][], paged: boolean) {
    const shape = `${active.map((f) => f.key).join('_') || 'all'}${paged ? '_paged' : ''}`
    let statements = this.#statements.get(shape)
    if (!statements) {
      const where = ['tenant = :tenant', ...active.map((f) => f.sql)].join(' AND ')
      const pageWhere = paged ? `${where} AND ${CURSOR}` : where
      statements = {
        count: statement(
          `sb_count_tasks_${shape}`,
          `SELECT count(*)::int AS n FROM ${this.#schema}.tasks WHERE ${where}`,
        ),
        page: statement(
          `sb_list_tasks_${shape}`,
          `SELECT snapshot FROM ${this.#schema}.tasks WHERE ${pageWhere}
           ORDER BY status_at DESC, id DESC LIMIT :limit`,
        ),
      }
      this.#statements.set(shape, statements)
    }
    return statements
  }
}
