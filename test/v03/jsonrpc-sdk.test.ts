/**
 * The @a2a-js/sdk 0.3.14 JSON-RPC client drives every A2A 0.3 operation against our server, with
 * no A2A-Version header (which means 0.3): the answers are 0.3 shapes the sdk reads as they are.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Message, MessageSendParams, Part, Task, TaskStatusUpdateEvent } from 'a2a-sdk-03'
import {
  A2AClient,
  AuthenticatedExtendedCardNotConfiguredError,
  ClientFactory,
  JsonRpcTransport,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from 'a2a-sdk-03/client'
import { demoAgents } from '../../src/demo/index.ts'
import { echoAgent, noPushAgent, startA2a, startReceiver, type TestServer } from '../a2a/helpers.ts'
import { TestAuthenticator } from '../helpers/test-authenticator.ts'
import { checkV03, vipAgent } from './helpers.ts'

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  server = await startA2a()
  receiver = await startReceiver()
})
after(async () => {
  await server?.close()
  await receiver?.close()
})

const sdk = (slug: string, fetchImpl?: typeof fetch) =>
  new JsonRpcTransport({ endpoint: `${server.base(slug)}/a2a/jsonrpc`, ...(fetchImpl && { fetchImpl }) })

const send = (
  parts: Part[],
  extra: Partial<Message> = {},
  configuration?: MessageSendParams['configuration'],
) => ({
  message: { kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts, ...extra },
  ...(configuration && { configuration }),
})

const asTask = (result: Task | Message): Task => {
  assert.equal(result.kind, 'task', 'message/send answered with a Task')
  return result as Task
}

const collect = async <T>(stream: AsyncGenerator<T>): Promise<T[]> => {
  const items: T[] = []
  for await (const item of stream) items.push(item)
  return items
}

describe('@a2a-js/sdk 0.3.14 over JSON-RPC', () => {
  it('message/send blocks until the task completes; the result is a 0.3 Task', async () => {
    const task = asTask(await sdk('echo').sendMessage(send([{ kind: 'data', data: { artifacts: true } }])))
    checkV03('Task', task)
    assert.equal(task.status.state, 'completed')
    const output = task.artifacts?.find((a) => a.name === 'output')
    assert.deepEqual(output?.parts[0], {
      kind: 'data',
      data: { input: { artifacts: true }, text: null, parts: 1 },
    })
    const file = task.artifacts?.find((a) => a.name === 'file')?.parts[0]
    assert.equal(file?.kind, 'file')
    assert.deepEqual(file.kind === 'file' && file.file, {
      bytes: Buffer.from('file body').toString('base64'),
      mimeType: 'text/plain',
      name: 'a.txt',
    })
    const link = task.artifacts?.find((a) => a.name === 'link')?.parts[0]
    assert.deepEqual(link?.kind === 'file' && link.file, {
      uri: 'https://example.org/x.pdf',
      mimeType: 'application/pdf',
      name: 'x.pdf',
    })
    assert.equal(task.history?.[0]?.role, 'user')
    assert.equal(task.history?.[0]?.kind, 'message')
  })

  it('message/send with blocking: false answers at once, before the task is done', async () => {
    const task = asTask(
      await sdk('long-runner').sendMessage(
        send([{ kind: 'data', data: { steps: 50, step_ms: 100 } }], {}, { blocking: false }),
      ),
    )
    assert.ok(['submitted', 'working'].includes(task.status.state), task.status.state)
    const canceled = await sdk('long-runner').cancelTask({ id: task.id })
    checkV03('Task', canceled)
    assert.equal(canceled.status.state, 'canceled')
    // Cancelling it again is idempotent; a completed task cannot be cancelled.
    assert.equal((await sdk('long-runner').cancelTask({ id: task.id })).status.state, 'canceled')
    const done = asTask(await sdk('echo').sendMessage(send([{ kind: 'text', text: 'hi' }])))
    await assert.rejects(sdk('echo').cancelTask({ id: done.id }), TaskNotCancelableError)
  })

  it('message/stream: the Task, then updates; only the last status update is final', async () => {
    const events = await collect(
      sdk('long-runner').sendMessageStream(send([{ kind: 'data', data: { steps: 2, step_ms: 1 } }])),
    )
    for (const event of events) checkV03('StreamEvent', event)
    assert.equal(events[0]?.kind, 'task')
    const statuses = events.filter((e): e is TaskStatusUpdateEvent => e.kind === 'status-update')
    assert.deepEqual(
      statuses.map((s) => s.final),
      [...statuses.slice(1).map(() => false), true],
    )
    assert.equal(statuses.at(-1)?.status.state, 'completed')
    assert.ok(
      statuses.some((s) => s.status.message?.parts[0]?.kind === 'text'),
      'the progress logs',
    )
    const output = events.find((e) => e.kind === 'artifact-update')
    assert.equal(output?.kind === 'artifact-update' && output.artifact.name, 'output')
  })

  it('tasks/get reads the task, historyLength bounding its history', async () => {
    const first = asTask(await sdk('report-builder').sendMessage(send([{ kind: 'text', text: 'tides' }])))
    const answered = asTask(
      await sdk('report-builder').sendMessage(
        send([{ kind: 'data', data: { sections: ['Moon'] } }], {
          taskId: first.id,
          contextId: first.contextId,
        }),
      ),
    )
    assert.equal(answered.status.state, 'completed')
    const whole = await sdk('report-builder').getTask({ id: first.id })
    assert.deepEqual(
      whole.history?.map((m) => m.role),
      ['user', 'agent', 'user'],
      'the question is a turn of its own',
    )
    const last = await sdk('report-builder').getTask({ id: first.id, historyLength: 1 })
    assert.deepEqual(last.history, whole.history?.slice(-1))
    const none = await sdk('report-builder').getTask({ id: first.id, historyLength: 0 })
    assert.equal(none.history, undefined)
  })

  it('a multi-turn task: input-required with the question, then the answer completes it', async () => {
    const client = sdk('report-builder')
    const asked = asTask(await client.sendMessage(send([{ kind: 'data', data: { subject: 'whales' } }])))
    assert.equal(asked.status.state, 'input-required')
    assert.equal(asked.status.message?.role, 'agent')
    assert.match(
      asked.status.message?.parts[0]?.kind === 'text' ? asked.status.message.parts[0].text : '',
      /Which sections/,
    )
    // The answer streamed: the task as it now is, then updates to the end.
    const events = await collect(
      client.sendMessageStream(
        send([{ kind: 'text', text: 'Songs, Migration' }], { taskId: asked.id, contextId: asked.contextId }),
      ),
    )
    const last = events.at(-1)
    assert.equal(last?.kind, 'status-update')
    assert.equal(last.kind === 'status-update' && last.final, true)
    assert.equal(last.kind === 'status-update' && last.status.state, 'completed')
    const report = (await client.getTask({ id: asked.id })).artifacts?.find((a) => a.name === 'report')
    const part = report?.parts[0]
    assert.ok(part?.kind === 'file' && 'bytes' in part.file)
    assert.match(Buffer.from(part.file.bytes, 'base64').toString(), /## 2\. Migration/)
  })

  it('a stream ends, final, when the task asks for input', async () => {
    const events = await collect(
      sdk('report-builder').sendMessageStream(send([{ kind: 'data', data: { subject: 'owls' } }])),
    )
    const last = events.at(-1)
    assert.equal(last?.kind === 'status-update' && last.status.state, 'input-required')
    assert.equal(last?.kind === 'status-update' && last.final, true)
  })

  it('tasks/resubscribe follows a running task to its end', async () => {
    const client = sdk('long-runner')
    const task = asTask(
      await client.sendMessage(
        send([{ kind: 'data', data: { steps: 3, step_ms: 30 } }], {}, { blocking: false }),
      ),
    )
    const events = await collect(client.resubscribeTask({ id: task.id }))
    assert.equal(events[0]?.kind, 'task')
    const last = events.at(-1)
    assert.equal(last?.kind === 'status-update' && last.status.state, 'completed')
    assert.equal(last?.kind === 'status-update' && last.final, true)
    // A finished task is its Task, and the stream ends.
    const again = await collect(client.resubscribeTask({ id: task.id }))
    assert.deepEqual(
      again.map((e) => e.kind === 'task' && e.status.state),
      ['completed'],
    )
    // A failure before the first event is the stream's error event, which the sdk reads.
    await assert.rejects(collect(client.resubscribeTask({ id: randomUUID() })), (error: Error) => {
      assert.ok(error.cause instanceof TaskNotFoundError, String(error))
      return true
    })
  })

  it('push notification configs: set, get (with and without an id), list, delete', async () => {
    const client = sdk('long-runner')
    const task = asTask(
      await client.sendMessage(
        send([{ kind: 'data', data: { steps: 100, step_ms: 50 } }], {}, { blocking: false }),
      ),
    )
    const pushNotificationConfig = {
      id: 'hook-1',
      url: receiver.url,
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'secret' },
    }
    const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig })
    checkV03('TaskPushNotificationConfig', set)
    assert.deepEqual(set, { taskId: task.id, pushNotificationConfig })
    assert.deepEqual(
      await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' }),
      set,
    )
    assert.deepEqual(await client.getTaskPushNotificationConfig({ id: task.id }), set, 'the first config')
    const other = await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { url: `${receiver.url}/2` },
    })
    assert.ok(other.pushNotificationConfig.id, 'the server names a config set without an id')
    const listed = await client.listTaskPushNotificationConfig({ id: task.id })
    assert.deepEqual(
      listed.map((c) => c.pushNotificationConfig.id).sort(),
      ['hook-1', other.pushNotificationConfig.id].sort(),
    )
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' })
    assert.deepEqual(
      (await client.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id),
      [other.pushNotificationConfig.id],
    )
    await assert.rejects(
      client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' }),
      TaskNotFoundError,
    )
    await client.cancelTask({ id: task.id })
  })

  it('errors: task not found, bad params, push not supported', async () => {
    await assert.rejects(sdk('echo').getTask({ id: randomUUID() }), TaskNotFoundError)
    await assert.rejects(sdk('echo').cancelTask({ id: 'not-a-task' }), TaskNotFoundError)
    await assert.rejects(
      sdk('echo').sendMessage({
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text' } as Part],
        },
      }),
      (error: Error) => {
        assert.match(error.message, /Code: -32602/)
        assert.match(error.message, /\/message\/parts\/0\/text/, 'the 0.3 field is named')
        return true
      },
    )
    await assert.rejects(
      sdk('echo').setTaskPushNotificationConfig({
        taskId: randomUUID(),
        pushNotificationConfig: { url: 'ftp://example.org' },
      }),
      /Code: -32602/,
    )
    const task = asTask(await sdk(noPushAgent.slug).sendMessage(send([{ kind: 'data', data: {} }])))
    await assert.rejects(
      sdk(noPushAgent.slug).setTaskPushNotificationConfig({
        taskId: task.id,
        pushNotificationConfig: { url: receiver.url },
      }),
      PushNotificationNotSupportedError,
    )
  })
})

describe('@a2a-js/sdk 0.3.14 finds the agent by its card', () => {
  it('ClientFactory.createFromUrl picks JSON-RPC from the card and sends', async () => {
    // The sdk resolves the well-known path against the URL: a base URL ends with a slash.
    const client = await new ClientFactory().createFromUrl(`${server.base('echo')}/`)
    const task = asTask(await client.sendMessage(send([{ kind: 'text', text: 'via the factory' }])))
    assert.equal(task.status.state, 'completed')
  })

  it('A2AClient.fromCardUrl reads the card url and streams', async () => {
    const client = await A2AClient.fromCardUrl(`${server.base('long-runner')}/.well-known/agent-card.json`)
    const events = await collect(
      client.sendMessageStream(send([{ kind: 'data', data: { steps: 1, step_ms: 1 } }])),
    )
    const last = events.at(-1)
    assert.equal(last?.kind === 'status-update' && last.status.state, 'completed')
  })
})

describe('one task, any version', () => {
  it('created over 0.3, followed over 1.0, cancelled over Clawpedia, read over 0.3', async () => {
    const base = server.base('long-runner')
    const task = asTask(
      await sdk('long-runner').sendMessage(
        send([{ kind: 'data', data: { steps: 200, step_ms: 50 } }], {}, { blocking: false }),
      ),
    )
    const follow = await fetch(`${base}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }),
    })
    assert.equal(follow.headers.get('content-type')?.startsWith('text/event-stream'), true)
    const stream = follow.text()
    const canceled = await fetch(`${base}/tasks/${task.id}/cancel`, { method: 'POST' })
    assert.ok(canceled.ok, `the Clawpedia cancel is accepted (${canceled.status})`)
    assert.match(await stream, /TASK_STATE_CANCELED/, 'the 1.0 stream sees the cancel and ends')
    assert.equal((await sdk('long-runner').getTask({ id: task.id })).status.state, 'canceled')
  })
})

describe('agent/getAuthenticatedExtendedCard', () => {
  let secured: TestServer
  before(async () => {
    secured = await startA2a({
      agents: [...demoAgents, echoAgent, vipAgent],
      identity: { authenticators: [new TestAuthenticator()] },
    })
  })
  after(() => secured?.close())
  const authorized: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), authorization: 'Bearer good' },
    })

  it('answers the extended card to an authenticated caller, -32007 when the agent has none', async () => {
    const client = (slug: string) =>
      new JsonRpcTransport({ endpoint: `${secured.base(slug)}/a2a/jsonrpc`, fetchImpl: authorized })
    const card = await client('vip').getExtendedAgentCard()
    assert.deepEqual(
      card.skills.map((s) => s.id),
      ['public', 'members'],
    )
    await assert.rejects(client('echo').getExtendedAgentCard(), AuthenticatedExtendedCardNotConfiguredError)
  })

  it('refuses an unauthenticated caller with HTTP 401 before any JSON-RPC is read', async () => {
    const response = await fetch(`${secured.base('vip')}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
    })
    assert.equal(response.status, 401)
    const body = (await response.json()) as { error: { code: number; data: unknown } }
    assert.equal(body.error.code, -32000)
    assert.equal(Array.isArray(body.error.data), false, '0.3 data is an object')
  })
})
