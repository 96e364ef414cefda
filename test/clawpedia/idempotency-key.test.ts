/**
 * Idempotency-Key on POST /tasks: the same key with the same input is the same task; with another
 * input, or to another agent, it is 409 IDEMPOTENCY_CONFLICT and nothing is created; the key is
 * the caller's own (another principal or tenant gets a task of its own).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'

let server: TestServer
before(async () => {
  server = await startServer({ identity: { authenticators: [testAuthenticator] } })
})
after(() => server.close())

const ALICE = bearer('alice', 'acme')
const base = (slug: string) => `${server.url}/agents/${slug}`

const create = (caller: Record<string, string>, key: string, input: object, slug = 'report-builder') =>
  request(`${base(slug)}/tasks`, { body: { input }, headers: { ...caller, 'idempotency-key': key } })

const aliceTasks = async () =>
  (await server.switchboard.store.listTasks({ tenant: 'acme', owner: 'alice' }, { pageSize: 1 })).totalSize

/** GET /tasks/{id} as `caller`. */
const get = (caller: Record<string, string>, taskId: string, slug = 'report-builder') =>
  request(`${base(slug)}/tasks/${taskId}`, { headers: caller })

describe('Clawpedia Idempotency-Key', () => {
  it('the same key and input again is the same task', async () => {
    const key = randomUUID()
    const first = await create(ALICE, key, { subject: 'owls', author: 'A' })
    assert.equal(first.status, 202)
    const again = await create(ALICE, key, { author: 'A', subject: 'owls' })
    assert.equal(again.status, 202)
    assert.equal(again.body.task_id, first.body.task_id)
  })

  it('the same key with another input, or to another agent, is 409 IDEMPOTENCY_CONFLICT and creates nothing', async () => {
    const key = randomUUID()
    const first = await create(ALICE, key, { subject: 'owls' })
    const before = await aliceTasks()
    const refusals = [
      await create(ALICE, key, { subject: 'bats' }),
      await create(ALICE, key, { topic: 'fibonacci', filename: 'f.py' }, 'python-script-generator'),
    ]
    for (const refused of refusals) {
      assert.equal(refused.status, 409)
      assert.equal(refused.body.error.code, 'IDEMPOTENCY_CONFLICT')
      assert.match(refused.body.error.message, new RegExp(`Idempotency-Key "${key}" was already used`))
    }
    assert.equal(await aliceTasks(), before)
    // The key still stands for the first request, and its task is as it was.
    assert.equal((await create(ALICE, key, { subject: 'owls' })).body.task_id, first.body.task_id)
    assert.equal((await get(ALICE, first.body.task_id)).body.input.subject, 'owls')
  })

  it("another principal's or tenant's key is its own: a new task, never the owner's", async () => {
    const key = randomUUID()
    const owned = await create(ALICE, key, { subject: 'owls' })
    for (const caller of [bearer('bob', 'acme'), bearer('alice', 'globex')]) {
      const other = await create(caller, key, { subject: 'bats' })
      assert.equal(other.status, 202)
      assert.notEqual(other.body.task_id, owned.body.task_id)
      assert.equal((await get(caller, owned.body.task_id)).status, 404)
    }
  })
})
