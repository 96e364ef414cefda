/**
 * AUTH_REQUIRED over HTTP: an agent calls ctx.requireAuth; every dialect shows the task waiting
 * (Clawpedia as INPUT_REQUIRED with the instructions, A2A as TASK_STATE_AUTH_REQUIRED on both
 * bindings, an A2A stream that stays open through it); the caller reports the step done and the
 * task completes, also across a restart. The handler sees its creating caller on every run.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, describe, it } from 'node:test'
import { SWITCHBOARD_KEY } from '../../src/dialects/a2a/wire/extensions.ts'
import type { CallerIdentity } from '../../src/model/caller.ts'
import { readSse, rest, rpc } from '../a2a/helpers.ts'
import { CALENDAR_AUTH_URL, calendarAgent, callersSeen } from '../fixtures/auth-agents.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { tokenAuthenticator } from '../helpers/test-authenticator.ts'

const ALICE: CallerIdentity = {
  principal: 'alice',
  tenant: 'acme',
  scopes: [],
  method: 'test',
  claims: { sub: 'alice', email: 'alice@acme.example' },
}
const BOB: CallerIdentity = { principal: 'bob', tenant: 'acme', scopes: [], method: 'test' }
const AS_ALICE = { authorization: 'Bearer alice-token' }
const AS_BOB = { authorization: 'Bearer bob-token' }

const dirs: string[] = []
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const start = (dataDir: string) =>
  startServer({
    agents: [calendarAgent],
    dataDir,
    identity: { authenticators: [tokenAuthenticator({ 'alice-token': ALICE, 'bob-token': BOB })] },
  })
let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
  callersSeen.length = 0
})
const freshServer = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-auth-http-'))
  dirs.push(dataDir)
  server = await start(dataDir)
  return { dataDir, base: `${server.url}/agents/calendar` }
}

const clawpediaTask = async (base: string, id: string) =>
  (await request(`${base}/tasks/${id}`, { headers: AS_ALICE })).body
const waitFor = (base: string, id: string, status: string) =>
  eventually(async () => ((await clawpediaTask(base, id)).status === status ? true : undefined))

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
const stateOf = (item: any): string | undefined =>
  (item.result ?? item).statusUpdate?.status.state ?? (item.result ?? item).task?.status.state

/** What both A2A bindings must show of a task waiting for the caller's authorization. */
// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
const assertAuthRequired = (task: any) => {
  assert.equal(task.status.state, 'TASK_STATE_AUTH_REQUIRED')
  assert.equal(task.status.message.role, 'ROLE_AGENT')
  assert.equal(task.status.message.parts[0].text, `Authorize access to your calendar (${CALENDAR_AUTH_URL})`)
  assert.deepEqual(task.status.message.metadata[SWITCHBOARD_KEY].auth, {
    scheme: 'oauth2',
    url: CALENDAR_AUTH_URL,
    scopes: ['calendar.read'],
  })
}

describe('AUTH_REQUIRED from an agent, over HTTP', () => {
  it('shows on every dialect and in an open stream, and completes once the caller reports the step done', async () => {
    const { base } = await freshServer()
    const stream = readSse(`${base}/a2a/jsonrpc`, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: {
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skipWeek: true } }] },
        },
      },
      headers: { 'A2A-Version': '1.0', ...AS_ALICE },
      timeoutMs: 10_000,
    })
    const id = await eventually(async () => {
      const listed = (await rest(base, '/tasks', { headers: AS_ALICE })).body
      return listed.tasks?.[0]?.id as string | undefined
    })
    await waitFor(base, id, 'INPUT_REQUIRED')

    const clawpedia = await clawpediaTask(base, id)
    assert.equal(clawpedia.status, 'INPUT_REQUIRED', 'Clawpedia has no AUTH_REQUIRED: the nearest state')
    assert.equal(clawpedia.prompt, `Authorize access to your calendar (${CALENDAR_AUTH_URL})`)
    assert.deepEqual(clawpedia.input_schema, { type: 'object' })
    assertAuthRequired(
      (await rpc(base, 'GetTask', { id }, { 'A2A-Version': '1.0', ...AS_ALICE })).body.result,
    )
    assertAuthRequired((await rest(base, `/tasks/${id}`, { headers: AS_ALICE })).body)

    const stranger = await request(`${base}/tasks/${id}/input`, { body: { input: {} }, headers: AS_BOB })
    assert.equal(stranger.status, 404, "another principal cannot report the owner's step done")

    const done = await request(`${base}/tasks/${id}/input`, { body: { input: {} }, headers: AS_ALICE })
    assert.equal(done.status, 202)
    const { events, closedByServer } = await stream
    // Status changes only: the output's artifact update comes between WORKING and COMPLETED.
    const states = events.map((e) => stateOf(JSON.parse(e.data))).filter((state) => state !== undefined)
    assert.ok(closedByServer, 'the stream ends at the terminal state')
    assert.deepEqual(states.slice(states.indexOf('TASK_STATE_AUTH_REQUIRED')), [
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ])
    const completed = await clawpediaTask(base, id)
    assert.deepEqual(completed.output, { week: null, done: {}, principal: 'alice' })
    assert.deepEqual(callersSeen, [ALICE, ALICE], 'both runs see the creating caller')
  })

  it('resumes after a restart between the requirement and the "done"', async () => {
    const { dataDir, base } = await freshServer()
    const created = await request(`${base}/tasks`, { body: { input: { skipWeek: true } }, headers: AS_ALICE })
    assert.equal(created.status, 202)
    const id = created.body.task_id as string
    await waitFor(base, id, 'INPUT_REQUIRED')
    await server?.close()
    server = await start(dataDir)
    const again = `${server.url}/agents/calendar`

    assertAuthRequired((await rest(again, `/tasks/${id}`, { headers: AS_ALICE })).body)
    const followUp = await rpc(
      again,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: id, parts: [{ text: 'done' }] } },
      { 'A2A-Version': '1.0', ...AS_ALICE },
    )
    assert.equal(followUp.body.result.task.status.state, 'TASK_STATE_COMPLETED')
    const completed = await clawpediaTask(again, id)
    // A text answer to a question with its own schema is the input { text } (docs/a2a.md, answers).
    assert.deepEqual(completed.output, { week: null, done: { text: 'done' }, principal: 'alice' })
    assert.deepEqual(
      callersSeen,
      [ALICE, ALICE],
      'the run after the restart replays with the recorded caller',
    )
  })
})
