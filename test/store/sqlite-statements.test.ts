import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SqliteDatabase } from '../../src/store/sqlite/driver.ts'
import { SNAPSHOT_COLUMNS } from '../../src/store/sqlite/rows.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { header, SCOPE } from './contract/fixtures.ts'

/**
 * Every statement the SQLite store prepares, recorded as it prepares it: the catalogues when the
 * store opens, and the list statements each filter combination builds.
 */
const dir = mkdtempSync(join(tmpdir(), 'switchboard-statements-'))
const prepared = new Set<string>()
const prepare = SqliteDatabase.prototype.prepare
let store: SqliteStore

before(async () => {
  SqliteDatabase.prototype.prepare = function (this: InstanceType<typeof SqliteDatabase>, source: string) {
    prepared.add(source)
    return prepare.call(this, source)
  } as typeof prepare
  try {
    store = new SqliteStore({ filename: join(dir, 'store.db') })
    const task = header({ agent: 'lister' })
    await store.createTask({ header: task, input: {}, message: { messageId: 'm', role: 'user', parts: [] } })
    await store.readEvents(task.id, 0, 10)
    for (const agent of [undefined, 'lister'])
      for (const contextId of [undefined, task.contextId])
        for (const state of [undefined, 'SUBMITTED' as const])
          for (const statusAfter of [undefined, '2000-01-01T00:00:00.000Z']) {
            const query = { pageSize: 1, agent, contextId, state, statusAfter }
            const page = await store.listTasks(SCOPE, query)
            await store.listTasks(SCOPE, { ...query, pageToken: page.nextPageToken || undefined })
            await store.listTasks({ tenant: SCOPE.tenant }, query)
          }
  } finally {
    SqliteDatabase.prototype.prepare = prepare
  }
})

after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A parameter the planner reads when it is bare: `?`, `?3`, `@name`, `:name`, `$name`. */
const BARE = String.raw`(?:\?\d*|[@:$][A-Za-z_]\w*)(?![\w(])`

describe('the SQLite store statements', () => {
  it('are all recorded (the catalogues and every list filter combination)', () => {
    assert.ok(prepared.size >= 60, `only ${prepared.size} statements recorded`)
    assert.ok([...prepared].some((sql) => sql.includes('FROM events WHERE')))
    assert.ok([...prepared].filter((sql) => sql.includes('AS tail FROM tasks WHERE tenant')).length >= 16)
  })

  // With a bare parameter there, SQLite may compile the statement again on every run (see prepareAll).
  it('put no bare parameter after LIMIT', () => {
    const bare = [...prepared].filter((sql) => new RegExp(String.raw`\bLIMIT\s+${BARE}`, 'i').test(sql))
    assert.deepEqual(bare, [])
  })

  it('compare no bare parameter with = in a WHERE', () => {
    const bare = [...prepared].filter((sql) => {
      const where = sql.search(/\bWHERE\b/)
      return where >= 0 && new RegExp(String.raw`(?<![<>!=])==?\s*${BARE}`).test(sql.slice(where))
    })
    assert.deepEqual(bare, [])
  })

  // The `+` hides the value from the planner, not the column from its index: every plan is the one
  // the bare parameter gets, and the hot reads stay index seeks.
  it('are planned as with a bare parameter', () => {
    const db = new SqliteDatabase(join(dir, 'store.db'), { readonly: true })
    try {
      const plan = (sql: string): string => {
        const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        // better-sqlite3 binds named and numbered parameters (@name, ?1) by key, `?` by position.
        const keys = [...sql.matchAll(/@(\w+)|\?(\d+)/g)].map(([, name, n]) => name ?? n!)
        const rows = (
          keys.length > 0
            ? statement.all(Object.fromEntries(keys.map((key) => [key, key === 'limit' ? 2 : 1])))
            : statement.all(...Array.from({ length: [...sql.matchAll(/\?/g)].length }, () => 1))
        ) as { detail: string }[]
        return rows.map((row) => row.detail).join('; ')
      }
      const plussed = [...prepared].filter((sql) => new RegExp(String.raw`\+${BARE}`).test(sql))
      assert.ok(plussed.length >= 20, `only ${plussed.length} statements with +?`)
      for (const sql of plussed) {
        assert.equal(plan(sql), plan(sql.replace(new RegExp(String.raw`\+(${BARE})`, 'g'), '$1')), sql)
      }
      const hot = [
        // GetTask: the row by its key, the events after its snapshot by theirs, in one statement.
        [
          `SELECT ${SNAPSHOT_COLUMNS} FROM tasks WHERE id = +? AND tenant = +? AND owner = coalesce(?, owner)`,
          /^SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 \(id=\?\); CORRELATED SCALAR SUBQUERY \d+; SEARCH events USING PRIMARY KEY \(task_id=\? AND seq>\?\)$/,
        ],
        [
          'SELECT id, created_at, target FROM push_configs WHERE task_id = +? ORDER BY created_at, id',
          /^SEARCH push_configs USING INDEX/,
        ],
      ] as const
      for (const [sql, seek] of hot) {
        assert.ok(prepared.has(sql), sql)
        assert.match(plan(sql), seek)
      }
    } finally {
      db.close()
    }
  })
})
