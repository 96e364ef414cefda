import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Task } from '../../../src/model/task.ts'
import { nowIso } from '../../../src/model/time.ts'
import { encodePageToken } from '../../../src/store/contract.ts'
import {
  assertSameTask,
  type CurrentStore,
  completed,
  createTask,
  FOREIGN_SCOPES,
  ids,
  rejectsWith,
  SCOPE,
  sleep,
  status,
  workingTask,
} from './fixtures.ts'

const newestFirst = (tasks: readonly Task[]): Task[] =>
  [...tasks].sort((a, b) =>
    a.statusAt !== b.statusAt ? (a.statusAt < b.statusAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
  )

/** listTasks: order, pagination, filters, scope. */
export const listCases = (store: CurrentStore): void => {
  describe('listTasks', () => {
    it('orders by status time then id, newest first, and pages with tokens until an empty one', async () => {
      const created: Task[] = []
      for (let i = 0; i < 7; i += 1) created.push(await createTask(store()))
      // A status change moves a task to the front (a later millisecond than every creation).
      await sleep(3)
      const moved = (await store().append({ taskId: created[0]!.id, events: [status('WORKING')] })).task
      created[0] = moved
      const expected = newestFirst(created)
      assert.equal(expected[0]?.id, moved.id)

      const pages: Task[][] = []
      let pageToken: string | undefined
      do {
        const page = await store().listTasks(SCOPE, { pageSize: 3, ...(pageToken && { pageToken }) })
        assert.equal(page.totalSize, 7)
        pages.push(page.tasks)
        pageToken = page.nextPageToken
      } while (pageToken !== '' && pages.length < 10)
      assert.deepEqual(
        pages.map((p) => p.length),
        [3, 3, 1],
      )
      assertSameTask(pages.flat(), expected)
    })

    it('says there is no next page when the last page is exactly full', async () => {
      for (let i = 0; i < 2; i += 1) await createTask(store())
      const page = await store().listTasks(SCOPE, { pageSize: 2 })
      assert.equal(page.tasks.length, 2)
      assert.equal(page.nextPageToken, '')
    })

    it('filters by agent, contextId, state and statusAfter, with totalSize counting the matches', async () => {
      const echo = await createTask(store(), { agent: 'echo' })
      const sum = await createTask(store(), { agent: 'sum', contextId: echo.contextId })
      const done = await workingTask(store(), { agent: 'sum' })
      await store().append({ taskId: done.id, events: [completed] })
      await sleep(5)
      const after = nowIso()
      await sleep(5)
      const late = await createTask(store(), { agent: 'echo' })

      const list = async (query: Record<string, string>) => {
        const page = await store().listTasks(SCOPE, { pageSize: 50, ...query })
        assert.equal(page.totalSize, page.tasks.length)
        return new Set(ids(page.tasks))
      }
      assert.deepEqual(await list({ agent: 'echo' }), new Set([echo.id, late.id]))
      assert.deepEqual(await list({ agent: 'sum' }), new Set([sum.id, done.id]))
      assert.deepEqual(await list({ contextId: echo.contextId }), new Set([echo.id, sum.id]))
      assert.deepEqual(await list({ state: 'COMPLETED' }), new Set([done.id]))
      assert.deepEqual(await list({ state: 'SUBMITTED', agent: 'sum' }), new Set([sum.id]))
      assert.deepEqual(await list({ statusAfter: after }), new Set([late.id]))
      assert.deepEqual(await list({ statusAfter: late.statusAt }), new Set([late.id]), 'at or after')
      assert.deepEqual(await list({ agent: 'nobody' }), new Set())
    })

    it('pages correctly under a filter', async () => {
      for (let i = 0; i < 5; i += 1) {
        await createTask(store(), { agent: 'a' })
        await createTask(store(), { agent: 'b' })
      }
      const first = await store().listTasks(SCOPE, { agent: 'a', pageSize: 3 })
      assert.equal(first.totalSize, 5)
      const second = await store().listTasks(SCOPE, {
        agent: 'a',
        pageSize: 3,
        pageToken: first.nextPageToken,
      })
      assert.equal(second.tasks.length, 2)
      assert.equal(second.nextPageToken, '')
      assert.ok([...first.tasks, ...second.tasks].every((t) => t.agent === 'a'))
      assert.equal(new Set(ids([...first.tasks, ...second.tasks])).size, 5)
    })

    it('refuses a page token it did not issue with INVALID_REQUEST', async () => {
      await createTask(store())
      for (const pageToken of ['not a token', Buffer.from('{"a":1}').toString('base64url'), '%%%']) {
        await rejectsWith(store().listTasks(SCOPE, { pageSize: 10, pageToken }), 'INVALID_REQUEST')
      }
    })

    it('accepts a token positioned anywhere, including past the end', async () => {
      const task = await createTask(store())
      const past = encodePageToken('1970-01-01T00:00:00.000Z', '0')
      const page = await store().listTasks(SCOPE, { pageSize: 10, pageToken: past })
      assert.deepEqual(page, { tasks: [], nextPageToken: '', totalSize: 1 })
      const before = encodePageToken('2999-01-01T00:00:00.000Z', 'z')
      assert.deepEqual(ids((await store().listTasks(SCOPE, { pageSize: 10, pageToken: before })).tasks), [
        task.id,
      ])
    })

    it('lists only the tasks of the scope', async () => {
      await createTask(store())
      for (const scope of FOREIGN_SCOPES) {
        assert.deepEqual(await store().listTasks(scope, { pageSize: 10 }), {
          tasks: [],
          nextPageToken: '',
          totalSize: 0,
        })
      }
    })
  })
}
