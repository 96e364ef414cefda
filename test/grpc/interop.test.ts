/**
 * The official @a2a-js/sdk 1.3 gRPC client ('@a2a-js/sdk/client/grpc'), made from our card, drives
 * every A2A operation against our gRPC server: the same promises as over JSON-RPC and HTTP+JSON
 * (test/a2a/interop.test.ts), on lf.a2a.v1.A2AService.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Message, TaskState } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors'
import { startA2a, startReceiver, type TestServer } from '../a2a/helpers.ts'
import { asTask, collect, dataOf, request } from '../helpers/sdk-requests.ts'
import { grpcAddressOf, sdkGrpcClient } from './helpers.ts'

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  server = await startA2a()
  receiver = await startReceiver()
})
after(async () => {
  await server.close()
  await receiver.close()
})

describe('the card offers the gRPC binding', () => {
  it('lists GRPC after the HTTP interfaces, host:port with the agent slug as tenant; not in the 0.3 fields', async () => {
    const card = (await (await fetch(`${server.base('echo')}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: {
        url: string
        protocolBinding: string
        protocolVersion: string
        tenant?: string
      }[]
      additionalInterfaces?: { transport: string }[]
    }
    const bindings = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)
    assert.deepEqual(bindings.slice(0, 3), ['JSONRPC 1.0', 'HTTP+JSON 1.0', 'GRPC 1.0'])
    const grpc = card.supportedInterfaces[2]!
    assert.equal(grpc.url, grpcAddressOf(server))
    assert.match(grpc.url, /^[^/]+:\d+$/, 'host:port, no scheme')
    assert.equal(grpc.tenant, 'echo')
    assert.ok(
      !card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC' && i.protocolVersion !== '1.0'),
    )
    assert.ok(
      !(card.additionalInterfaces ?? []).some((i) => i.transport === 'GRPC'),
      'a 0.3 client is not offered gRPC',
    )
    const root = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as typeof card
    const rootGrpc = root.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')
    assert.equal(
      rootGrpc?.tenant,
      'python-script-generator',
      'the default agent is named by its slug at the root too',
    )
  })
})

describe('@a2a-js/sdk 1.3 over GRPC (lf.a2a.v1.A2AService)', () => {
  let client: Client
  const base = (slug: string) => server.base(slug)
  before(async () => {
    client = await sdkGrpcClient(base('python-script-generator'))
  })

  it('SendMessage blocks until the task completes and returns its artifacts', async () => {
    const task = asTask(
      await client.sendMessage(request([{ data: { topic: 'fibonacci numbers', filename: 'fib.py' } }])),
    )
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
    // A script is a small file: its bytes come inline, as a raw part.
    const file = task.artifacts.find((a) => a.parts[0]?.content?.$case === 'raw')
    assert.ok(file, 'the script is a raw part')
    assert.equal(file.parts[0]?.filename, 'fib.py')
    assert.equal(file.parts[0]?.mediaType, 'text/x-python')
    const raw = file.parts[0]?.content?.$case === 'raw' ? file.parts[0].content.value : Buffer.alloc(0)
    assert.match(Buffer.from(raw).toString(), /def fibonacci/)
    const linked = await fetch(`${base('python-script-generator')}/artifacts/${file.artifactId}/content`)
    assert.equal(await linked.text(), Buffer.from(raw).toString(), 'the content endpoint serves it too')
    const output = task.artifacts.find((a) => a.name === 'output')
    assert.equal((dataOf(output) as { template: string }).template, 'fibonacci')
    assert.equal(task.history[0]?.role, 1)
  })

  it('SendMessage with returnImmediately answers at once; GetTask follows the task', async () => {
    const runner = await sdkGrpcClient(base('long-runner'))
    const task = asTask(
      await runner.sendMessage(
        request([{ data: { steps: 3, step_ms: 30 } }], { configuration: { returnImmediately: true } }),
      ),
    )
    assert.ok([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(task.status!.state))
    // A deadline, not a count of polls: each poll takes longer on a loaded machine.
    let current = task
    const deadline = Date.now() + 20_000
    while (current.status?.state !== TaskState.TASK_STATE_COMPLETED && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      current = await runner.getTask({ tenant: '', id: task.id, historyLength: 0 })
    }
    assert.equal(current.status?.state, TaskState.TASK_STATE_COMPLETED)
    assert.deepEqual(current.history, [], 'historyLength 0 leaves the history out')
    assert.equal(current.contextId, task.contextId)
  })

  it('SendStreamingMessage streams the Task, then updates, and closes at completion', async () => {
    const events = await collect(
      client.sendMessageStream(request([{ text: 'count the words in a text file' }])),
    )
    assert.equal(events[0]?.payload?.$case, 'task')
    const last = events.at(-1)?.payload
    assert.equal(last?.$case, 'statusUpdate')
    assert.equal(last?.$case === 'statusUpdate' && last.value.status?.state, TaskState.TASK_STATE_COMPLETED)
    const kinds = new Set(events.map((e) => e.payload?.$case))
    assert.ok(kinds.has('artifactUpdate'), 'artifacts are streamed')
    const logs = events.filter(
      (e) =>
        e.payload?.$case === 'statusUpdate' &&
        e.payload.value.status?.message?.metadata?.switchboard?.kind === 'log',
    )
    assert.ok(logs.length >= 2, 'log lines arrive as status updates marked as logs')
  })

  it('CancelTask cancels a running task, repeats idempotently, and refuses a completed one', async () => {
    const runner = await sdkGrpcClient(base('long-runner'))
    const task = asTask(
      await runner.sendMessage(
        request([{ data: { steps: 1000, step_ms: 20 } }], { configuration: { returnImmediately: true } }),
      ),
    )
    const cancelled = await runner.cancelTask({ tenant: '', id: task.id, metadata: undefined })
    assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED)
    const again = await runner.cancelTask({ tenant: '', id: task.id, metadata: undefined })
    assert.equal(again.status?.state, TaskState.TASK_STATE_CANCELED)
    const done = asTask(await runner.sendMessage(request([{ data: { steps: 1, step_ms: 0 } }])))
    await assert.rejects(
      runner.cancelTask({ tenant: '', id: done.id, metadata: undefined }),
      TaskNotCancelableError,
    )
    await assert.rejects(runner.getTask({ tenant: '', id: randomUUID() }), TaskNotFoundError)
  })

  it('ListTasks pages through a context, newest status first, with totals', async () => {
    const echo = await sdkGrpcClient(base('echo'))
    const contextId = randomUUID()
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push(asTask(await echo.sendMessage(request([{ data: { i } }], { contextId }))).id)
    const first = await echo.listTasks({
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 2,
      pageToken: '',
      statusTimestampAfter: undefined,
    })
    assert.equal(first.tasks.length, 2)
    assert.equal(first.totalSize, 3)
    assert.equal(first.pageSize, 2)
    assert.notEqual(first.nextPageToken, '')
    assert.deepEqual(first.tasks[0]?.artifacts, [], 'artifacts are left out unless asked for')
    const second = await echo.listTasks({
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageSize: 2,
      pageToken: first.nextPageToken,
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    })
    assert.equal(second.tasks.length, 1)
    assert.equal(second.nextPageToken, '')
    assert.ok(second.tasks[0]!.artifacts.some((a) => a.name === 'output'))
    assert.deepEqual([...first.tasks, ...second.tasks].map((t) => t.id).sort(), [...ids].sort())
    const stamps = [...first.tasks, ...second.tasks].map((t) => t.status!.timestamp!)
    assert.deepEqual(stamps, [...stamps].sort().reverse(), 'sorted by status timestamp, newest first')
  })

  it('push notification configs: create, get, list, delete', async () => {
    const echo = await sdkGrpcClient(base('echo'))
    const task = asTask(await echo.sendMessage(request([{ text: 'hi' }])))
    const created = await echo.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: task.id,
      url: receiver.url,
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    })
    assert.ok(created.id, 'the server assigns an id')
    assert.equal(created.taskId, task.id)
    assert.equal(created.url, receiver.url)
    const read = await echo.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })
    assert.deepEqual(read, created)
    const listed = await echo.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    })
    assert.deepEqual(
      listed.configs.map((c) => c.id),
      [created.id],
    )
    await echo.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })
    await echo.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })
    const after = await echo.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    })
    assert.deepEqual(after.configs, [])
    await assert.rejects(
      echo.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id }),
      TaskNotFoundError,
    )
  })

  it('SubscribeToTask starts with the Task and follows it to the end', async () => {
    const runner = await sdkGrpcClient(base('long-runner'))
    const task = asTask(
      await runner.sendMessage(
        request([{ data: { steps: 5, step_ms: 50 } }], { configuration: { returnImmediately: true } }),
      ),
    )
    const events = await collect(runner.resubscribeTask({ tenant: '', id: task.id }))
    assert.equal(events[0]?.payload?.$case, 'task')
    const last = events.at(-1)?.payload
    assert.equal(last?.$case === 'statusUpdate' && last.value.status?.state, TaskState.TASK_STATE_COMPLETED)
    await assert.rejects(
      collect(runner.resubscribeTask({ tenant: '', id: task.id })),
      UnsupportedOperationError,
    )
  })

  it('multi-turn: INPUT_REQUIRED, a follow-up message with the taskId, then COMPLETED', async () => {
    const builder = await sdkGrpcClient(base('report-builder'))
    const asked = asTask(await builder.sendMessage(request([{ text: 'owls' }])))
    assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
    const question = asked.status?.message
    assert.equal(question?.role, 2)
    assert.match(
      question?.parts[0]?.content?.$case === 'text' ? question.parts[0].content.value : '',
      /sections/,
    )
    const answered = asTask(
      await builder.sendMessage(
        request([{ data: { sections: ['Habitat', 'Diet'] } }], {
          taskId: asked.id,
          contextId: asked.contextId,
        }),
      ),
    )
    assert.equal(answered.status?.state, TaskState.TASK_STATE_COMPLETED)
    assert.equal(answered.id, asked.id)
    assert.deepEqual(
      answered.history.map((m) => m.role),
      [1, 2, 1],
      'user, agent question, user answer',
    )
    assert.equal(answered.history[1]?.messageId, question?.messageId)
    const output = answered.artifacts.find((a) => a.name === 'output')
    assert.deepEqual((dataOf(output) as { sections: string[] }).sections, ['Habitat', 'Diet'])
    await assert.rejects(
      builder.sendMessage(request([{ text: 'more' }], { taskId: asked.id })),
      UnsupportedOperationError,
      'a terminal task takes no more messages',
    )
  })

  it('GetExtendedAgentCard: the card declares none, and the server says so', async () => {
    const card = await client.getAgentCard()
    assert.equal(card.capabilities?.extendedAgentCard, false)
    assert.equal(card.name, 'Python Script Generator')
    // The transport itself, because the client skips the call when the card declares no extended card.
    await assert.rejects(
      client.transport.getExtendedAgentCard({ tenant: '' }, { serviceParameters: { 'A2A-Version': '1.0' } }),
      UnsupportedOperationError,
    )
  })

  it('Message codec round trip: the message we sent is in the history as sent', async () => {
    const sent = Message.fromJSON({
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'hello' }],
    })
    const echo = await sdkGrpcClient(base('echo'))
    const task = asTask(
      await echo.sendMessage({ tenant: '', message: sent, configuration: undefined, metadata: undefined }),
    )
    assert.equal(task.history[0]?.messageId, sent.messageId)
    assert.deepEqual(task.history[0]?.parts, sent.parts)
  })
})
