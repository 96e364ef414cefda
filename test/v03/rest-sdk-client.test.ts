/**
 * A2A 0.3 over HTTP+JSON (`/v1/…` under the REST interface URL), driven by @a2a-js/sdk 0.3.14's
 * own REST transport against our server: every 0.3 operation, a multi-turn task, streams and
 * resubscribe, push-config CRUD, the extended card, and the errors with their statuses.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-03'
import { RestTransport, TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-03/client'
import { eventually, http, startA2a, startReceiver, type TestServer } from '../a2a/helpers.ts'

const REST = '/a2a/rest'
const userText = (text: string, ids: { taskId?: string; contextId?: string } = {}): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...ids,
})
const userData = (data: Record<string, unknown>): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'data', data }],
})

type StreamEvent = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent

const collect = async (events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> => {
  const all: StreamEvent[] = []
  for await (const event of events) all.push(event)
  return all
}

/** The first 0.3 webhook (a Task body) the receiver got for `taskId` in `state`. */
const webhookOf = (receiver: Awaited<ReturnType<typeof startReceiver>>, taskId: string, state: string) =>
  eventually(
    async () =>
      receiver.received.find((r) => {
        const body = JSON.parse(r.body)
        return body.id === taskId && body.status?.state === state
      }),
    `the webhook of the ${state} task`,
  )

describe('A2A 0.3 HTTP+JSON: the sdk 0.3.14 REST client against our server', () => {
  let server: TestServer
  let echo: RestTransport
  let reports: RestTransport

  before(async () => {
    server = await startA2a()
    echo = new RestTransport({ endpoint: `${server.base('echo')}${REST}` })
    reports = new RestTransport({ endpoint: `${server.base('report-builder')}${REST}` })
  })
  after(() => server.close())

  it('sends blocking: the completed task, in 0.3 shapes', async () => {
    const task = (await echo.sendMessage({
      message: userData({ hello: 'world', artifacts: true }),
      configuration: { blocking: true },
    })) as Task
    assert.equal(task.kind, 'task')
    assert.equal(task.status.state, 'completed')
    assert.ok(task.contextId)
    const byName = new Map(task.artifacts?.map((a) => [a.name, a]))
    assert.deepEqual(byName.get('note')?.parts, [{ kind: 'text', text: 'plain words' }])
    assert.deepEqual(byName.get('data')?.parts, [{ kind: 'data', data: { n: 1 } }])
    assert.deepEqual(byName.get('link')?.parts, [
      { kind: 'file', file: { uri: 'https://example.org/x.pdf', mimeType: 'application/pdf' } },
    ])
    const output = byName.get('output')?.parts[0]
    assert.equal(output?.kind, 'data')
    assert.deepEqual((output as { data: Record<string, unknown> }).data.input, {
      hello: 'world',
      artifacts: true,
    })
  })

  it('sends without blocking: the task as soon as it exists, then GetTask sees it finish', async () => {
    const task = (await echo.sendMessage({
      message: userData({ hold_ms: 200 }),
      configuration: { blocking: false },
    })) as Task
    assert.ok(['submitted', 'working'].includes(task.status.state), task.status.state)
    const deadline = Date.now() + 5000
    let state = task.status.state
    while (state !== 'completed' && Date.now() < deadline) {
      state = (await echo.getTask({ id: task.id })).status.state
    }
    assert.equal(state, 'completed')
  })

  it('answers a send with 201 and application/json, as sdk 0.3.14 does', async () => {
    const response = await http(`${server.base('echo')}${REST}/v1/message:send`, {
      body: { message: { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text: 'hi' }] } },
    })
    assert.equal(response.status, 201)
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
    assert.equal(response.body.task.status.state, 'TASK_STATE_COMPLETED')
  })

  it('streams: the task, then its updates, the last one final', async () => {
    const events = await collect(echo.sendMessageStream({ message: userText('stream me') }))
    assert.equal(events[0]?.kind, 'task')
    const last = events.at(-1) as TaskStatusUpdateEvent
    assert.equal(last.kind, 'status-update')
    assert.equal(last.status.state, 'completed')
    assert.equal(last.final, true)
    assert.ok(events.some((e) => e.kind === 'artifact-update'))
    const finals = events.filter((e) => e.kind === 'status-update' && e.final)
    assert.equal(finals.length, 1)
  })

  it('reads a task with historyLength', async () => {
    const task = (await echo.sendMessage({
      message: userText('remember me'),
      configuration: { blocking: true },
    })) as Task
    const full = await echo.getTask({ id: task.id })
    assert.ok((full.history?.length ?? 0) >= 1)
    const one = await echo.getTask({ id: task.id, historyLength: 1 })
    assert.equal(one.history?.length, 1)
  })

  it('runs a multi-turn task: input-required, then the answer completes it', async () => {
    const first = (await reports.sendMessage({
      message: userData({ subject: 'tides' }),
      configuration: { blocking: true },
    })) as Task
    assert.equal(first.status.state, 'input-required')
    assert.match(
      first.status.message?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') ?? '',
      /sections/,
    )
    const answer: Message = {
      ...userData({ sections: ['Intro', 'Moon'] }),
      taskId: first.id,
      contextId: first.contextId,
    }
    const done = (await reports.sendMessage({ message: answer, configuration: { blocking: true } })) as Task
    assert.equal(done.id, first.id)
    assert.equal(done.status.state, 'completed')
    const report = done.artifacts?.find((a) => a.name === 'report')?.parts[0]
    assert.equal(report?.kind, 'file')
    assert.equal((report as { file: { mimeType?: string } }).file.mimeType, 'text/markdown')
  })

  it('a stream ends at input-required with a final update', async () => {
    const events = await collect(reports.sendMessageStream({ message: userData({ subject: 'rivers' }) }))
    const last = events.at(-1) as TaskStatusUpdateEvent
    assert.equal(last.status.state, 'input-required')
    assert.equal(last.final, true)
  })

  it('cancels (202), and a second cancel of a finished task is TaskNotCancelable (409)', async () => {
    const task = (await echo.sendMessage({
      message: userData({ hold_ms: 5000 }),
      configuration: { blocking: false },
    })) as Task
    const cancelled = await echo.cancelTask({ id: task.id })
    assert.equal(cancelled.status.state, 'canceled')
    const done = (await echo.sendMessage({
      message: userText('quick'),
      configuration: { blocking: true },
    })) as Task
    await assert.rejects(echo.cancelTask({ id: done.id }), TaskNotCancelableError)
    const raw = await http(`${server.base('echo')}${REST}/v1/tasks/${done.id}:cancel`, { method: 'POST' })
    assert.equal(raw.status, 409)
    assert.equal(raw.body.code, -32002)
    const again = await http(`${server.base('echo')}${REST}/v1/tasks/${task.id}:cancel`, { method: 'POST' })
    assert.equal(again.status, 202)
    assert.equal(again.body.status.state, 'TASK_STATE_CANCELLED')
  })

  it('resubscribes to a running task, and to a finished one gets the task and the end', async () => {
    const task = (await echo.sendMessage({
      message: userData({ hold_ms: 300 }),
      configuration: { blocking: false },
    })) as Task
    const events = await collect(echo.resubscribeTask({ id: task.id }))
    assert.equal(events[0]?.kind, 'task')
    const last = events.at(-1) as TaskStatusUpdateEvent
    assert.equal(last.status.state, 'completed')
    assert.equal(last.final, true)
    const replay = await collect(echo.resubscribeTask({ id: task.id }))
    assert.equal(replay.length, 1)
    assert.equal(replay[0]?.kind, 'task')
    assert.equal((replay[0] as Task).status.state, 'completed')
  })

  it('creates, gets, lists and deletes push configs', async () => {
    const task = (await echo.sendMessage({
      message: userData({ hold_ms: 5000 }),
      configuration: { blocking: false },
    })) as Task
    const created = await echo.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: {
        id: 'hook-1',
        url: 'https://example.org/hook',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    })
    assert.equal(created.taskId, task.id)
    assert.deepEqual(created.pushNotificationConfig, {
      id: 'hook-1',
      url: 'https://example.org/hook',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'secret' },
    })
    const got = await echo.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' })
    assert.deepEqual(got, created)
    const listed = await echo.listTaskPushNotificationConfig({ id: task.id })
    assert.deepEqual(listed, [created])
    await echo.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' })
    assert.deepEqual(await echo.listTaskPushNotificationConfig({ id: task.id }), [])
    await assert.rejects(
      echo.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' }),
      TaskNotFoundError,
    )
    await echo.cancelTask({ id: task.id })
  })

  it('push configs registered over 0.3 REST get 0.3 webhook bodies (the Task, kind-tagged)', async () => {
    const receiver = await startReceiver()
    try {
      const task = (await echo.sendMessage({
        message: userText('notify me'),
        configuration: { blocking: true, pushNotificationConfig: { url: receiver.url, token: 'tok-9' } },
      })) as Task
      const done = await webhookOf(receiver, task.id, 'completed')
      assert.equal(JSON.parse(done.body).kind, 'task')
      assert.equal(done.headers['x-a2a-notification-token'], 'tok-9')
      assert.match(done.headers['content-type'] ?? '', /^application\/json/)
    } finally {
      await receiver.close()
    }
  })

  it('a push config created over 0.3 REST gets 0.3 webhook bodies too', async () => {
    const receiver = await startReceiver()
    try {
      const task = (await echo.sendMessage({
        message: userData({ hold_ms: 5000 }),
        configuration: { blocking: false },
      })) as Task
      await echo.setTaskPushNotificationConfig({
        taskId: task.id,
        pushNotificationConfig: { url: receiver.url, token: 'tok-c' },
      })
      await echo.cancelTask({ id: task.id })
      const cancelled = await webhookOf(receiver, task.id, 'canceled')
      assert.equal(JSON.parse(cancelled.body).kind, 'task')
      assert.equal(cancelled.headers['x-a2a-notification-token'], 'tok-c')
    } finally {
      await receiver.close()
    }
  })

  it('takes a push config in the spec body shape ({ parent, config }) too, and answers 201', async () => {
    const task = (await echo.sendMessage({
      message: userText('x'),
      configuration: { blocking: true },
    })) as Task
    const response = await http(`${server.base('echo')}${REST}/v1/tasks/${task.id}/pushNotificationConfigs`, {
      body: {
        parent: `tasks/${task.id}`,
        configId: 'spec-shape',
        config: { pushNotificationConfig: { url: 'https://example.org/spec' } },
      },
    })
    assert.equal(response.status, 201)
    assert.deepEqual(response.body, {
      name: `tasks/${task.id}/pushNotificationConfigs/spec-shape`,
      pushNotificationConfig: { id: 'spec-shape', url: 'https://example.org/spec' },
    })
    const deleted = await http(
      `${server.base('echo')}${REST}/v1/tasks/${task.id}/pushNotificationConfigs/spec-shape`,
      { method: 'DELETE' },
    )
    assert.equal(deleted.status, 204)
  })

  it('a missing task is TaskNotFound (404, code -32001)', async () => {
    await assert.rejects(echo.getTask({ id: randomUUID() }), TaskNotFoundError)
    const raw = await http(`${server.base('echo')}${REST}/v1/tasks/${randomUUID()}`)
    assert.equal(raw.status, 404)
    assert.equal(raw.body.code, -32001)
    assert.match(raw.body.message, /task/)
  })

  it('a malformed body is InvalidParams (400, -32602) naming the 0.3 field', async () => {
    const response = await http(`${server.base('echo')}${REST}/v1/message:send`, {
      body: {
        message: { messageId: 'm1', role: 'ROLE_USER', content: [{ file: { mimeType: 'text/plain' } }] },
      },
    })
    assert.equal(response.status, 400)
    assert.equal(response.body.code, -32602)
    assert.match(response.body.message, /content\/0/)
    // The same error object as over 0.3 JSON-RPC: the reason, and the violated fields.
    assert.equal(response.body.data.reason, 'INVALID_PARAMS')
    assert.ok(
      response.body.data.fieldViolations.some((v: { field: string }) => v.field.includes('content/0')),
    )
    const notJson = await http(`${server.base('echo')}${REST}/v1/message:send`, {
      raw: '{',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(notJson.status, 400)
    assert.equal(notJson.body.code, -32700)
  })

  it('an agent message (ROLE_AGENT) and a bad historyLength are refused with 400', async () => {
    const agentRole = await http(`${server.base('echo')}${REST}/v1/message:send`, {
      body: { message: { messageId: 'm2', role: 'ROLE_AGENT', content: [{ text: 'hi' }] } },
    })
    assert.equal(agentRole.status, 400)
    assert.equal(agentRole.body.code, -32602)
    const history = await http(`${server.base('echo')}${REST}/v1/tasks/${randomUUID()}?historyLength=-1`)
    assert.equal(history.status, 400)
    assert.equal(history.body.code, -32602)
  })

  it('push configs on an agent without push are PushNotificationNotSupported (-32003)', async () => {
    const noPush = new RestTransport({ endpoint: `${server.base('no-push')}${REST}` })
    await assert.rejects(noPush.listTaskPushNotificationConfig({ id: randomUUID() }), /Push|push/)
    const raw = await http(
      `${server.base('no-push')}${REST}/v1/tasks/${randomUUID()}/pushNotificationConfigs`,
    )
    assert.equal(raw.status, 400)
    assert.equal(raw.body.code, -32003)
  })

  it('an unknown verb is MethodNotFound (404, -32601)', async () => {
    const raw = await http(`${server.base('echo')}${REST}/v1/tasks/${randomUUID()}:explode`, {
      method: 'POST',
    })
    assert.equal(raw.status, 404)
    assert.equal(raw.body.code, -32601)
  })
})
