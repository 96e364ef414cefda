/**
 * Messages in, tasks out: how parts become agent input, how contextId/taskId/messageId behave,
 * how artifacts, history and failures are rendered — every response checked against the A2A
 * schema and its REQUIRED fields.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { outputArtifactId, stableUuid } from '../../src/dialects/a2a/mapping.ts'
import { acceptsMediaType } from '../../src/dialects/a2a/parts.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { eventually, http, rest, rpc, startA2a, startReceiver, type TestServer } from './helpers.ts'

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

const echo = () => server.base('echo')

const msg = (parts: unknown[], extra: object = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
})

/** SendMessage over JSON-RPC; the result is checked as a SendMessageResponse and its task returned. */
const sendRpc = async (base: string, message: object, configuration?: object) => {
  const response = await rpc(base, 'SendMessage', { message, ...(configuration && { configuration }) })
  assert.equal(response.body.error, undefined, JSON.stringify(response.body.error))
  checkA2a('SendMessageResponse', response.body.result)
  return response.body.result.task
}

describe('A2A messages and tasks', () => {
  it('a data part is the input; text parts and text/* raw parts join into the text', async () => {
    const csv = Buffer.from('a,b\n1,2').toString('base64')
    const task = await sendRpc(
      echo(),
      msg([
        { text: 'first' },
        { data: { k: 'v' } },
        { raw: csv, mediaType: 'text/csv', filename: 'x.csv' },
        { text: 'last' },
      ]),
    )
    const output = task.artifacts.find((a: { name: string }) => a.name === 'output').parts[0].data
    assert.deepEqual(output, { input: { k: 'v' }, text: 'first\na,b\n1,2\nlast', parts: 4 })
    assert.deepEqual(task.history[0].parts[2], { raw: csv, mediaType: 'text/csv', filename: 'x.csv' })
  })

  it("text alone goes through the agent's fromText", async () => {
    const task = await sendRpc(server.base('python-script-generator'), msg([{ text: 'fibonacci sequence' }]))
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
    const output = task.artifacts.find((a: { name: string }) => a.name === 'output').parts[0].data
    assert.equal(output.template, 'fibonacci')
    assert.equal(output.filename, 'script.py')
  })

  it('a media type in the agent’s inputModes is accepted; modes match by family with wildcards', async () => {
    const task = await sendRpc(echo(), msg([{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }, { data: {} }]))
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
    assert.ok(acceptsMediaType(['text/*'], 'text/csv'))
    assert.ok(acceptsMediaType(['*/*'], 'image/png'))
    assert.ok(acceptsMediaType(['Text/Plain; charset=utf-8'], 'text/plain'))
    assert.equal(acceptsMediaType(['text/*'], 'image/png'), false)
  })

  it('artifacts map to parts: text, data, url, log, file (a small one inline, as raw bytes), output', async () => {
    const task = await sendRpc(echo(), msg([{ data: { artifacts: true } }]))
    const byName = Object.fromEntries(task.artifacts.map((a: { name: string }) => [a.name, a]))
    assert.deepEqual(byName.note.parts, [{ text: 'plain words' }])
    assert.deepEqual(byName.data.parts, [{ data: { n: 1 }, mediaType: 'application/json' }])
    assert.deepEqual(byName.link.parts, [
      { url: 'https://example.org/x.pdf', mediaType: 'application/pdf', filename: 'x.pdf' },
    ])
    assert.deepEqual(byName.trace.parts, [
      { text: 'line one', mediaType: 'text/plain', metadata: { switchboard: { kind: 'log' } } },
    ])
    // A small file travels inline (test/a2a/inline-files.test.ts has the large ones, as links).
    assert.deepEqual(byName.file.parts, [
      { raw: Buffer.from('file body').toString('base64'), mediaType: 'text/plain', filename: 'a.txt' },
    ])
    const content = await fetch(`${echo()}/artifacts/${byName.file.artifactId}/content`)
    assert.equal(await content.text(), 'file body')
    assert.equal(byName.output.artifactId, outputArtifactId(task.id))
    assert.equal(byName.output.artifactId, stableUuid(`${task.id}/output`))
    assert.match(
      byName.output.artifactId,
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    const again = (await rest(echo(), `/tasks/${task.id}`)).body
    checkA2a('Task', again)
    assert.deepEqual(
      again.artifacts,
      task.artifacts,
      'every read renders the same artifacts, output id included',
    )
  })

  it('a failed task explains itself in its status message', async () => {
    const task = await sendRpc(echo(), msg([{ data: { fail: true } }]))
    assert.equal(task.status.state, 'TASK_STATE_FAILED')
    assert.deepEqual(task.status.message.parts, [{ text: 'asked to fail' }])
    assert.equal(task.status.message.role, 'ROLE_AGENT')
    assert.equal(task.status.message.metadata.switchboard.error.code, 'ECHO_FAILED')
    const again = (await rpc(echo(), 'GetTask', { id: task.id })).body.result
    assert.equal(again.status.message.messageId, task.status.message.messageId)
  })

  it('contextId: kept when given without taskId, inferred from the task when omitted', async () => {
    const contextId = `conversation-${randomUUID()}`
    const a = await sendRpc(echo(), msg([{ text: 'one' }], { contextId }))
    const b = await sendRpc(echo(), msg([{ text: 'two' }], { contextId }))
    assert.equal(a.contextId, contextId)
    assert.equal(b.contextId, contextId)
    assert.notEqual(a.id, b.id, 'a message without taskId starts a new task in the context')
    const fresh = await sendRpc(echo(), msg([{ text: 'three' }]))
    assert.ok(
      fresh.contextId && fresh.contextId !== contextId,
      'the server mints a contextId when none is given',
    )
    const builder = server.base('report-builder')
    const asked = await sendRpc(builder, msg([{ text: 'ants' }]))
    const answered = await sendRpc(builder, msg([{ data: { sections: ['Colonies'] } }], { taskId: asked.id }))
    assert.equal(answered.contextId, asked.contextId)
    assert.equal(answered.history.at(-1).contextId, asked.contextId)
  })

  it('messageId is idempotent: a repeated send returns the same task, a repeated follow-up too', async () => {
    const message = msg([{ data: { i: 1 } }])
    const first = await sendRpc(echo(), message)
    const second = await sendRpc(echo(), message)
    assert.equal(second.id, first.id)
    const listed = (await rpc(echo(), 'ListTasks', { contextId: first.contextId })).body.result
    assert.equal(listed.totalSize, 1)
    const builder = server.base('report-builder')
    const asked = await sendRpc(builder, msg([{ text: 'bees' }]))
    const answer = msg([{ data: { sections: ['Hives'] } }], { taskId: asked.id })
    const done = await sendRpc(builder, answer)
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED')
    const repeat = await sendRpc(builder, answer)
    assert.equal(repeat.id, asked.id)
    assert.equal(
      repeat.status.state,
      'TASK_STATE_COMPLETED',
      'the repeat returns the task instead of failing',
    )
  })

  it('historyLength: unset gives all turns, n the last n, 0 none (the field left out)', async () => {
    const builder = server.base('report-builder')
    const asked = await sendRpc(builder, msg([{ text: 'frogs' }]), { historyLength: 1 })
    assert.equal(asked.history.length, 1)
    assert.equal(asked.history[0].role, 'ROLE_AGENT')
    const all = (await rpc(builder, 'GetTask', { id: asked.id })).body.result
    checkA2a('Task', all)
    assert.deepEqual(
      all.history.map((m: { role: string }) => m.role),
      ['ROLE_USER', 'ROLE_AGENT'],
    )
    const none = (await rest(builder, `/tasks/${asked.id}?historyLength=0`)).body
    assert.equal('history' in none, false)
    const one = (await rest(builder, `/tasks/${asked.id}?historyLength=1`)).body
    assert.equal(one.history.length, 1)
  })

  it('ListTasks: filters, artifacts absent unless asked, nextPageToken always present', async () => {
    const contextId = randomUUID()
    const since = new Date().toISOString()
    await sendRpc(echo(), msg([{ data: { fail: true } }], { contextId }))
    await sendRpc(echo(), msg([{ data: { artifacts: true } }], { contextId }))
    const all = (await rest(echo(), `/tasks?contextId=${contextId}`)).body
    checkA2a('ListTasksResponse', all)
    assert.equal(all.tasks.length, 2)
    assert.equal(all.nextPageToken, '')
    assert.equal(all.pageSize, 50)
    for (const task of all.tasks) assert.equal('artifacts' in task, false)
    const failed = (await rest(echo(), `/tasks?contextId=${contextId}&status=TASK_STATE_FAILED`)).body
    assert.deepEqual(
      failed.tasks.map((t: { status: { state: string } }) => t.status.state),
      ['TASK_STATE_FAILED'],
    )
    const byNumber = (await rpc(echo(), 'ListTasks', { contextId, status: 3, includeArtifacts: true })).body
      .result
    assert.equal(byNumber.tasks.length, 1)
    assert.ok(byNumber.tasks[0].artifacts.length >= 5)
    const later = (
      await rest(
        echo(),
        `/tasks?contextId=${contextId}&statusTimestampAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      )
    ).body
    assert.deepEqual(later.tasks, [])
    assert.equal(later.totalSize, 0)
    const recent = (
      await rpc(echo(), 'ListTasks', { contextId, statusTimestampAfter: since, historyLength: 0 })
    ).body.result
    assert.equal(recent.tasks.length, 2)
    for (const task of recent.tasks) assert.equal('history' in task, false)
  })

  it('push configs inline in SendMessage, and over REST in the 1.0 shape', async () => {
    const task = await sendRpc(echo(), msg([{ text: 'x' }]), {
      taskPushNotificationConfig: {
        url: receiver.url,
        token: 't',
        authentication: { scheme: 'Basic', credentials: 'dXNlcjpwdw==' },
      },
    })
    const listed = (await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs`)).body
    checkA2a('ListTaskPushNotificationConfigsResponse', listed)
    assert.equal(listed.configs.length, 1)
    assert.deepEqual(
      { ...listed.configs[0], id: undefined },
      {
        id: undefined,
        taskId: task.id,
        url: receiver.url,
        token: 't',
        authentication: { scheme: 'Basic', credentials: 'dXNlcjpwdw==' },
      },
    )
    const chosenId = `mine-${randomUUID()}`
    const created = await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs`, {
      body: { id: chosenId, url: `${receiver.url}/b` },
      headers: { 'content-type': 'application/a2a+json' },
    })
    assert.equal(created.status, 200)
    assert.match(created.headers.get('content-type') ?? '', /^application\/a2a\+json/)
    checkA2a('TaskPushNotificationConfig', created.body)
    assert.deepEqual(created.body, { id: chosenId, taskId: task.id, url: `${receiver.url}/b` })
    const deleted = await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs/${chosenId}`, {
      method: 'DELETE',
    })
    assert.equal(deleted.status, 200)
    assert.deepEqual(deleted.body, {})
    const rpcDelete = await rpc(echo(), 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: chosenId })
    assert.deepEqual(rpcDelete.body.result, {}, 'deleting again succeeds: delete is idempotent')
  })

  it('a follow-up and its push config are recorded together: a refused answer leaves no config', async () => {
    const builder = server.base('report-builder')
    const asked = await sendRpc(builder, msg([{ text: 'owls' }]))
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED')
    const push = { taskPushNotificationConfig: { url: receiver.url } }
    const refused = await rpc(builder, 'SendMessage', {
      message: msg([{ data: { sections: [] } }], { taskId: asked.id }),
      configuration: push,
    })
    assert.equal(refused.body.error.data[0].metadata.code, 'INPUT_SCHEMA_VIOLATION')
    const configs = async () =>
      (await rpc(builder, 'ListTaskPushNotificationConfigs', { taskId: asked.id })).body.result.configs
    assert.deepEqual(await configs(), [])
    const done = await sendRpc(builder, msg([{ data: { sections: ['Flight'] } }], { taskId: asked.id }), push)
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED')
    assert.equal((await configs()).length, 1)
  })

  it('a webhook registered with the message receives A2A 1.0 StreamResponses', async () => {
    const task = await sendRpc(echo(), msg([{ data: { artifacts: true } }]), {
      taskPushNotificationConfig: {
        url: `${receiver.url}/e2e`,
        authentication: { scheme: 'Bearer', credentials: 'tk' },
      },
    })
    const mine = () =>
      receiver.received.filter(
        (r) =>
          JSON.parse(r.body).statusUpdate?.taskId === task.id ||
          JSON.parse(r.body).artifactUpdate?.taskId === task.id,
      )
    await eventually(
      async () =>
        mine().some((r) => JSON.parse(r.body).statusUpdate?.status.state === 'TASK_STATE_COMPLETED')
          ? true
          : undefined,
      'the completion webhook',
    )
    for (const request of mine()) {
      checkA2a('StreamResponse', JSON.parse(request.body))
      assert.match(String(request.headers['content-type']), /^application\/a2a\+json/)
      assert.equal(request.headers.authorization, 'Bearer tk')
    }
    assert.ok(
      mine().some((r) => JSON.parse(r.body).artifactUpdate?.artifact.name === 'file'),
      'artifacts are pushed too',
    )
  })

  it("a push URL the server's outbound policy refuses is InvalidParams naming the URL", async () => {
    const task = await sendRpc(echo(), msg([{ text: 'x' }]))
    const url = 'http://169.254.169.254/latest/meta-data'
    const viaRpc = await rpc(echo(), 'CreateTaskPushNotificationConfig', { taskId: task.id, url })
    assert.equal(viaRpc.body.error.code, -32602)
    assert.match(
      viaRpc.body.error.message,
      /push notification url http:\/\/169\.254\.169\.254\/latest\/meta-data is refused/,
    )
    assert.equal(viaRpc.body.error.data[0].metadata.code, 'URL_NOT_ALLOWED')
    const inline = await rest(echo(), '/message:send', {
      body: {
        message: msg([{ text: 'x' }]),
        configuration: { taskPushNotificationConfig: { url: 'http://10.1.2.3/hook' } },
      },
    })
    assert.equal(inline.status, 400)
    assert.equal(inline.body.error.details[0].reason, 'INVALID_PARAMS')
    assert.match(inline.body.error.message, /10\.1\.2\.3/)
    const listed = (await rpc(echo(), 'ListTaskPushNotificationConfigs', { taskId: task.id })).body.result
    assert.deepEqual(listed.configs, [], 'nothing was registered')
  })

  it('REST takes application/a2a+json and application/json bodies and answers in the same', async () => {
    for (const type of ['application/a2a+json', 'application/json']) {
      const response = await rest(echo(), '/message:send', {
        raw: JSON.stringify({ message: msg([{ text: type }]) }),
        headers: { 'content-type': type },
      })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type')?.split(';')[0], type)
      checkA2a('SendMessageResponse', response.body)
      checkA2a('Message', response.body.task.history[0])
    }
    const cancel = await http(`${echo()}/a2a/rest/tasks/${randomUUID()}:cancel`, {
      method: 'POST',
      headers: { 'A2A-Version': '1.0' },
    })
    assert.equal(cancel.status, 404, 'a bodiless POST is fine')
  })
})
