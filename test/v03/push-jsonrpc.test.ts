/**
 * Push configs registered over A2A 0.3 get what a 0.3 receiver expects: the Task in 0.3 JSON as
 * application/json, the token in X-A2A-Notification-Token, `Authorization: <scheme> <credentials>`.
 * A 1.0 config on the same task keeps 1.0 bodies, and both versions list both configs.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, afterEach, before, describe, it } from 'node:test'
import { renderA2aPush } from '../../src/dialects/a2a/push-body.ts'
import { asV03PushTarget } from '../../src/dialects/a2a/push-target.ts'
import { rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { eventually } from '../helpers/server.ts'
import { deliveryOf, echoTask, onCleanup, type Receiver, runCleanup, startReceiver } from '../push/helpers.ts'
import { checkV03 } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server?.close())
afterEach(runCleanup)

const receiver = async (): Promise<Receiver> => {
  const started = await startReceiver()
  onCleanup(started.close)
  return started
}

const NONE = {}
const V10 = { 'A2A-Version': '1.0' }
const userMessage = (data: object, configuration?: object) => ({
  message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data }] },
  ...(configuration && { configuration }),
})

/** The bodies a receiver got, parsed, once one of them satisfies `done`. */
const bodiesUntil = (hook: Receiver, done: (body: Record<string, unknown>) => boolean) =>
  eventually(
    async () => {
      const bodies = hook.received.map((r) => JSON.parse(r.body))
      return bodies.some(done) ? bodies : undefined
    },
    10_000,
    'the webhook',
  )

describe('0.3 push bodies', () => {
  it('configuration.pushNotificationConfig on message/send: the 0.3 Task, with token and Authorization', async () => {
    const hook = await receiver()
    const pushNotificationConfig = {
      url: hook.url,
      token: 'tok-1',
      authentication: { schemes: ['Bearer', 'Basic'], credentials: 's3cret' },
    }
    const { body } = await rpc(
      server.base('echo'),
      'message/send',
      userMessage({ artifacts: true }, { pushNotificationConfig }),
      NONE,
    )
    assert.equal(body.result.status.state, 'completed')
    const bodies = await bodiesUntil(hook, (b) => (b.status as { state: string }).state === 'completed')
    for (const delivered of bodies) {
      checkV03('Task', delivered)
      assert.equal(delivered.kind, 'task')
      assert.equal(delivered.id, body.result.id)
    }
    const last = bodies.find((b) => (b.status as { state: string }).state === 'completed')!
    assert.deepEqual(last.artifacts, body.result.artifacts, 'the same Task tasks/get shows')
    for (const { headers } of hook.received) {
      assert.equal(headers['content-type'], 'application/json')
      assert.equal(headers['x-a2a-notification-token'], 'tok-1')
      assert.equal(headers.authorization, 'Bearer s3cret', 'the first scheme')
    }
  })

  it('set over 0.3 and over 1.0 on one task: each receiver gets its version, both versions list both', async () => {
    const old = await receiver()
    const current = await receiver()
    // The task waits for input while the configs are set, so both see it finish.
    const base = server.base('report-builder')
    const created = await rpc(base, 'message/send', userMessage({ subject: 'tides' }), NONE)
    assert.equal(created.body.result.status.state, 'input-required')
    const taskId = created.body.result.id
    const v03 = await rpc(
      base,
      'tasks/pushNotificationConfig/set',
      { taskId, pushNotificationConfig: { id: 'old', url: old.url } },
      NONE,
    )
    assert.equal(v03.body.result.pushNotificationConfig.id, 'old')
    const v10 = await rpc(
      base,
      'CreateTaskPushNotificationConfig',
      { taskId, id: 'new', url: current.url },
      V10,
    )
    assert.equal(v10.body.result.id, 'new')
    const listed03 = (await rpc(base, 'tasks/pushNotificationConfig/list', { id: taskId }, NONE)).body.result
    assert.deepEqual(
      listed03.map((c: { pushNotificationConfig: { id: string } }) => c.pushNotificationConfig.id).sort(),
      ['new', 'old'],
    )
    const listed10 = (await rpc(base, 'ListTaskPushNotificationConfigs', { taskId }, V10)).body.result
    assert.deepEqual(listed10.configs.map((c: { id: string }) => c.id).sort(), ['new', 'old'])

    const answer = {
      message: { ...userMessage({ sections: ['Moon'] }).message, taskId },
    }
    assert.equal((await rpc(base, 'message/send', answer, NONE)).body.result.status.state, 'completed')
    const bodies03 = await bodiesUntil(
      old,
      (b) => (b.status as { state: string } | undefined)?.state === 'completed',
    )
    for (const delivered of bodies03) checkV03('Task', delivered)
    const bodies10 = await bodiesUntil(
      current,
      (b) =>
        (b.statusUpdate as { status: { state: string } } | undefined)?.status.state ===
        'TASK_STATE_COMPLETED',
    )
    for (const delivered of bodies10) assert.equal(delivered.kind, undefined, 'a 1.0 StreamResponse')
    assert.equal(current.received[0]?.headers['content-type'], 'application/a2a+json')
  })
})

describe('renderA2aPush for a 0.3 target', () => {
  const TASK_ID = '5d1e6a0c-3b7f-4c2a-9e8d-1f2a3b4c5d6e'
  const AT = '2026-01-02T03:04:05.678Z'
  const task = echoTask({ id: TASK_ID, createdAt: AT }, { state: 'WORKING', statusAt: AT, version: 2 })
  const event = { kind: 'status', state: 'WORKING', seq: 2, at: AT } as const

  it('is the Task as it stood at the event; no Authorization without credentials', () => {
    const target = asV03PushTarget({ kind: 'a2a', url: 'https://hooks.example/a2a', artifacts: true })
    const { body, headers } = renderA2aPush(deliveryOf(event, task, target), 'https://x.example/agents/echo')
    const payload = JSON.parse(body)
    checkV03('Task', payload)
    assert.equal(payload.status.state, 'working')
    assert.deepEqual(headers, { 'content-type': 'application/json' })
  })
})
