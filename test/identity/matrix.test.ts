/**
 * The authorization matrix: every endpoint of every dialect × every kind of caller. Each cell
 * asserts the status and body in the dialect's exact shape, and that another caller's task answers
 * exactly like a task that does not exist. Every response is kept, and no caller may ever have
 * received a byte of a task that is not in its reach (see docs/security/authorization.md).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { instantAgent } from '../helpers/agents.ts'
import { eventually, startServer, type TestServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'
import { ENDPOINTS } from './matrix-endpoints.ts'
import {
  type Answer,
  assertNotFound,
  assertUnauthenticated,
  CALLERS,
  type CallerName,
  call,
  expected,
  normalized,
  nowhere,
  type Target,
  vaultAgent,
} from './matrix-helpers.ts'

let server: TestServer
let base: string
/** Every response each caller received, searched for other callers' data at the end. */
const seen = new Map<CallerName, Answer[]>()
const keep = (caller: CallerName, answer: Answer): Answer => {
  seen.set(caller, [...(seen.get(caller) ?? []), answer])
  return answer
}

/** A task of `headers`' caller holding `secret`, waiting in INPUT_REQUIRED, with one push config. */
const vaultTask = async (headers: Record<string, string>, secret: string): Promise<Target> => {
  const created = JSON.parse((await call(`${base}/tasks`, { headers, body: { input: { secret } } })).text)
  const taskId: string = created.task_id ?? created.id
  await eventually(async () => {
    const task = JSON.parse((await call(`${base}/tasks/${taskId}`, { headers })).text)
    return task.status === 'INPUT_REQUIRED' ? task : undefined
  })
  const { artifacts } = JSON.parse((await call(`${base}/tasks/${taskId}/artifacts`, { headers })).text)
  const config = JSON.parse(
    (
      await call(`${base}/a2a/rest/tasks/${taskId}/pushNotificationConfigs`, {
        headers,
        body: { url: 'http://127.0.0.1:9/hook' },
      })
    ).text,
  )
  return { taskId, artifactId: artifacts[0].artifact_id ?? artifacts[0].id, configId: config.id }
}

/** How many push configs the owner sees on its task. */
const configCount = async (target: Target): Promise<number> => {
  const url = `${base}/a2a/rest/tasks/${target.taskId}/pushNotificationConfigs`
  return JSON.parse((await call(url, { headers: CALLERS.owner })).text).configs.length
}

const ALICE_SECRET = `SECRET-ALICE-${randomUUID()}`
const BOB_SECRET = `SECRET-BOB-${randomUUID()}`
let alice: Target
let bob: Target

before(async () => {
  server = await startServer({
    agents: [vaultAgent, instantAgent],
    identity: { authenticators: [testAuthenticator] },
    access: { instant: { principals: ['alice'] } },
    admin: { token: 'matrix-admin-token' },
  })
  base = `${server.url}/agents/vault`
  alice = await vaultTask(CALLERS.owner, ALICE_SECRET)
  bob = await vaultTask(CALLERS.peer, BOB_SECRET)
})
after(() => server.close())

describe('authorization matrix: every endpoint × every caller', () => {
  for (const endpoint of ENDPOINTS) {
    for (const caller of Object.keys(CALLERS) as CallerName[]) {
      const outcome = expected(endpoint, caller)
      it(`${endpoint.dialect} ${endpoint.name} × ${caller}: ${outcome}`, async () => {
        const headers = CALLERS[caller]
        switch (outcome) {
          case 'unauthenticated':
            return assertUnauthenticated(
              assert,
              endpoint.dialect,
              keep(caller, await endpoint.call(base, headers, alice)),
            )
          case 'not found': {
            const answer = keep(caller, await endpoint.call(base, headers, alice))
            assertNotFound(assert, endpoint, answer)
            // Exactly as a task that does not exist: same status, same body but for the id asked.
            const missing = nowhere()
            const unknown = await endpoint.call(base, headers, missing)
            assert.equal(normalized(answer, alice), normalized(unknown, missing))
            return
          }
          case 'ok': {
            // The owner's writes change a task: each gets a fresh one; reads use the shared task.
            const target = endpoint.access === 'write' ? await vaultTask(headers, ALICE_SECRET) : alice
            const answer = keep(caller, await endpoint.call(base, headers, target))
            assert.equal(answer.status, endpoint.ok, answer.text)
            assert.doesNotMatch(answer.text, /"error"/)
            if (endpoint.name === 'artifact content') assert.equal(answer.text, ALICE_SECRET)
            else if (/^delete/i.test(endpoint.name)) assert.equal(await configCount(target), 0)
            else assert.ok(answer.text.includes(target.taskId), answer.text)
            return
          }
          case 'same for every caller': {
            const answer = keep(caller, await endpoint.call(base, headers, alice))
            assert.notEqual(answer.status, 401)
            assert.notEqual(answer.status, 404)
            return
          }
        }
      })
    }
  }
})

describe('ListTasks and the leak check', () => {
  const ids = (answer: Answer): string[] => JSON.parse(answer.text).tasks.map((t: { id: string }) => t.id)
  const lists = {
    jsonrpc: (headers: Record<string, string>, params: object = {}) =>
      call(`${base}/a2a/jsonrpc`, {
        headers,
        body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params },
      }).then((a) => ({ ...a, text: JSON.stringify(JSON.parse(a.text).result ?? JSON.parse(a.text)) })),
    rest: (headers: Record<string, string>) => call(`${base}/a2a/rest/tasks?pageSize=100`, { headers }),
  }

  for (const [binding, list] of Object.entries(lists)) {
    it(`${binding}: each caller lists its own tasks, a tenant reader its tenant's, nobody another tenant's`, async () => {
      const owner = ids(keep('owner', await list(CALLERS.owner)))
      assert.ok(owner.includes(alice.taskId))
      assert.ok(!owner.includes(bob.taskId))
      const peer = ids(keep('peer', await list(CALLERS.peer)))
      assert.ok(peer.includes(bob.taskId))
      assert.ok(
        peer.every((id) => !owner.includes(id)),
        'the peer lists none of the owner’s tasks',
      )
      const foreign = keep('foreign', await list(CALLERS.foreign))
      assert.ok(!ids(foreign).includes(alice.taskId) && !ids(foreign).includes(bob.taskId))
      const reader = ids(keep('tenantReader', await list(CALLERS.tenantReader)))
      assert.ok(reader.includes(alice.taskId) && reader.includes(bob.taskId))
      for (const caller of ['none', 'wrong'] as const)
        assertUnauthenticated(
          assert,
          binding as 'jsonrpc' | 'rest',
          keep(caller, await list(CALLERS[caller])),
        )
    })
  }

  it('no response to anyone but the owner and the tenant reader carries the owner’s data', () => {
    for (const [caller, answers] of seen) {
      const text = answers.map((a) => a.text).join('\n')
      if (caller !== 'owner' && caller !== 'tenantReader') {
        assert.ok(!text.includes(ALICE_SECRET), `${caller} saw alice's secret`)
      }
      if (caller === 'owner') assert.ok(!text.includes(BOB_SECRET), "the owner saw bob's secret")
    }
  })

  it('the other callers’ writes changed nothing: the task still waits, with its one push config', async () => {
    const task = JSON.parse((await call(`${base}/tasks/${alice.taskId}`, { headers: CALLERS.owner })).text)
    assert.equal(task.status, 'INPUT_REQUIRED')
    assert.equal(await configCount(alice), 1)
  })
})

describe('tenant-wide write, tenants on the A2A wire, per-agent access, admin', () => {
  it('tasks:write:tenant answers and cancels a peer’s task; tasks:read:tenant alone does not', async () => {
    const target = await vaultTask(CALLERS.peer, 'peer-task')
    const reader = await call(`${base}/tasks/${target.taskId}/cancel`, {
      headers: CALLERS.tenantReader,
      method: 'POST',
    })
    assert.equal(reader.status, 404)
    const writer = bearer('erin', 'acme', ['tasks:write:tenant'])
    const answered = await call(`${base}/tasks/${target.taskId}/input`, {
      headers: writer,
      body: { input: { more: 1 } },
    })
    assert.equal(answered.status, 202)
    const other = bearer('erin', 'globex', ['tasks:write:tenant', 'tasks:read:tenant'])
    assert.equal((await call(`${base}/tasks/${target.taskId}`, { headers: other })).status, 404)
  })

  it('the tenant field and the /{tenant}/ path select only the caller’s own tenant', async () => {
    const get = (tenant: string) =>
      call(`${base}/a2a/jsonrpc`, {
        headers: CALLERS.owner,
        body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: alice.taskId, tenant } },
      }).then((a) => JSON.parse(a.text))
    assert.equal((await get('acme')).result.id, alice.taskId)
    assert.equal((await get('')).result.id, alice.taskId)
    assert.equal((await get('globex')).error.code, -32001)
    assert.equal(
      (await call(`${base}/a2a/rest/acme/tasks/${alice.taskId}`, { headers: CALLERS.owner })).status,
      200,
    )
    const foreign = await call(`${base}/a2a/rest/globex/tasks/${alice.taskId}`, { headers: CALLERS.owner })
    assert.equal(foreign.status, 404)
    assert.equal(JSON.parse(foreign.text).error.details[0].reason, 'TASK_NOT_FOUND')
    const list = await call(`${base}/a2a/rest/globex/tasks`, { headers: CALLERS.owner })
    assert.equal(list.status, 403)
    assert.equal(JSON.parse(list.text).error.status, 'PERMISSION_DENIED')
    const listed = await call(`${base}/a2a/rest/acme/tasks`, { headers: CALLERS.owner })
    assert.ok(listed.text.includes(alice.taskId))
  })

  it('an agent’s access rule lets in who it lists: FORBIDDEN in each dialect’s shape, the cards stay public', async () => {
    const instant = `${server.url}/agents/instant`
    const body = { input: {} }
    assert.equal((await call(`${instant}/tasks`, { headers: CALLERS.owner, body })).status, 202)
    const clawpedia = await call(`${instant}/tasks`, { headers: CALLERS.peer, body })
    assert.equal(clawpedia.status, 403)
    assert.equal(JSON.parse(clawpedia.text).error.code, 'FORBIDDEN')
    const rpc = await call(`${instant}/a2a/jsonrpc`, {
      headers: CALLERS.peer,
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } },
    })
    assert.equal(rpc.status, 403)
    assert.equal(JSON.parse(rpc.text).error.code, -32020)
    const rest = await call(`${instant}/a2a/rest/tasks`, { headers: CALLERS.peer })
    assert.equal(rest.status, 403)
    assert.equal(JSON.parse(rest.text).error.status, 'PERMISSION_DENIED')
    assert.equal((await call(`${instant}/a2a/rest/tasks`, { headers: CALLERS.none })).status, 401)
    assert.equal((await call(`${instant}/.well-known/agent-card.json`)).status, 200)
    assert.equal((await call(`${instant}/agent-card.json`)).status, 200)
  })

  const ADMIN = [
    '/admin/deliveries',
    '/admin/deliveries/stats',
    `/admin/deliveries/${randomUUID()}`,
    '/admin/replica',
  ]
  const adminCallers: [string, Record<string, string>, number][] = [
    ['owner (no admin scope)', CALLERS.owner, 403],
    ['tenant reader', CALLERS.tenantReader, 403],
    ['no credential', CALLERS.none, 401],
    ['a wrong credential', CALLERS.wrong, 401],
    ['the admin scope', bearer('ops', 'acme', ['admin']), 200],
    ['the admin token', { authorization: 'Bearer matrix-admin-token' }, 200],
  ]
  for (const [who, headers, status] of adminCallers) {
    it(`admin API × ${who}: ${status}`, async () => {
      for (const path of ADMIN) {
        const answer = await call(`${server.url}${path}`, { headers })
        // A delivery that does not exist is 404 to whoever may look.
        assert.equal(
          answer.status,
          status === 200 && path.split('/').length === 4 && !path.endsWith('stats') ? 404 : status,
          path,
        )
        assert.ok(!answer.text.includes(ALICE_SECRET))
      }
    })
  }
})
