/**
 * Every A2A error this server can raise, on both bindings, with the exact JSON-RPC code (HTTP 200)
 * or REST status, google.rpc status name and ErrorInfo reason (digest §4.2–4.4). The table itself
 * is checked in error-table.test.ts.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { A2A_ERRORS, type A2aErrorKind } from '../../src/dialects/a2a/errors.ts'
import { type HttpResult, http, rest, rpc, startA2a, type TestServer, V } from './helpers.ts'

let server: TestServer
let completed: string
let working: string
let waiting: string
let noPushTask: string

const gen = () => server.base('python-script-generator')
const runner = () => server.base('long-runner')
const builder = () => server.base('report-builder')
const noPush = () => server.base('no-push')

const message = (parts: unknown[], extra: object = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra },
})

before(async () => {
  server = await startA2a()
  const done = await rpc(gen(), 'SendMessage', message([{ data: { topic: 'x', filename: 'x.py' } }]))
  completed = done.body.result.task.id
  const run = await rpc(runner(), 'SendMessage', {
    ...message([{ data: { steps: 1000, step_ms: 50 } }]),
    configuration: { returnImmediately: true },
  })
  working = run.body.result.task.id
  const ask = await rpc(builder(), 'SendMessage', message([{ text: 'owls' }]))
  waiting = ask.body.result.task.id
  assert.equal(ask.body.result.task.status.state, 'TASK_STATE_INPUT_REQUIRED')
  noPushTask = (await rpc(noPush(), 'SendMessage', message([{ data: {} }]))).body.result.task.id
})
after(async () => {
  await rpc(runner(), 'CancelTask', { id: working })
  await server.close()
})

const expectRpc = (response: HttpResult, kind: A2aErrorKind, id: unknown = 'any') => {
  assert.equal(response.status, 200, 'JSON-RPC errors travel with HTTP 200')
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
  assert.equal(response.body.jsonrpc, '2.0')
  if (id !== 'any') assert.equal(response.body.id, id)
  assert.equal(response.body.result, undefined)
  const { error } = response.body
  assert.equal(error.code, A2A_ERRORS[kind].jsonRpc, `${kind}: ${JSON.stringify(error)}`)
  assert.equal(typeof error.message, 'string')
  assert.ok(Array.isArray(error.data), 'data is an array of @type objects')
  const info = error.data.find(
    (d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  )
  assert.equal(info?.reason, A2A_ERRORS[kind].reason)
  assert.equal(info?.domain, 'a2a-protocol.org')
  assert.equal(typeof info?.metadata, 'object')
  return error
}

const expectRest = (response: HttpResult, kind: A2aErrorKind, status: number = A2A_ERRORS[kind].http) => {
  assert.equal(response.status, status, `${kind}: ${JSON.stringify(response.body)}`)
  assert.match(response.headers.get('content-type') ?? '', /^application\/a2a\+json/)
  const { error } = response.body
  assert.equal(error.code, status)
  assert.equal(error.status, A2A_ERRORS[kind].status)
  assert.equal(typeof error.message, 'string')
  const info = error.details.find(
    (d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  )
  assert.equal(info?.reason, A2A_ERRORS[kind].reason)
  assert.equal(info?.domain, 'a2a-protocol.org')
  return error
}

const fieldViolations = (details: { '@type': string; fieldViolations?: { field: string }[] }[]) =>
  details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations ?? []

interface Case {
  name: string
  kind: A2aErrorKind
  jsonrpc: () => Promise<HttpResult>
  rest: () => Promise<HttpResult>
  /** REST status when it differs from the kind's (413, 415). */
  restStatus?: number
}

const CASES: Case[] = [
  {
    name: 'GetTask of an unknown task',
    kind: 'TaskNotFoundError',
    jsonrpc: () => rpc(gen(), 'GetTask', { id: randomUUID() }),
    rest: () => rest(gen(), `/tasks/${randomUUID()}`),
  },
  {
    name: 'GetTask of an id that is not ours at all',
    kind: 'TaskNotFoundError',
    jsonrpc: () => rpc(gen(), 'GetTask', { id: 'tasks/../../etc' }),
    rest: () => rest(gen(), '/tasks/not-a-task'),
  },
  {
    name: "GetTask of another agent's task",
    kind: 'TaskNotFoundError',
    jsonrpc: () => rpc(runner(), 'GetTask', { id: completed }),
    rest: () => rest(runner(), `/tasks/${completed}`),
  },
  {
    name: 'a follow-up message to an unknown task',
    kind: 'TaskNotFoundError',
    jsonrpc: () => rpc(gen(), 'SendMessage', message([{ text: 'x' }], { taskId: randomUUID() })),
    rest: () => rest(gen(), '/message:send', { body: message([{ text: 'x' }], { taskId: randomUUID() }) }),
  },
  {
    name: 'Get of a push config that does not exist',
    kind: 'TaskNotFoundError',
    jsonrpc: () => rpc(gen(), 'GetTaskPushNotificationConfig', { taskId: completed, id: randomUUID() }),
    rest: () => rest(gen(), `/tasks/${completed}/pushNotificationConfigs/${randomUUID()}`),
  },
  {
    name: 'CancelTask of a completed task',
    kind: 'TaskNotCancelableError',
    jsonrpc: () => rpc(gen(), 'CancelTask', { id: completed }),
    rest: () => rest(gen(), `/tasks/${completed}:cancel`, { method: 'POST' }),
  },
  {
    name: 'CreateTaskPushNotificationConfig on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    jsonrpc: () =>
      rpc(noPush(), 'CreateTaskPushNotificationConfig', { taskId: noPushTask, url: 'https://example.org/h' }),
    rest: () =>
      rest(noPush(), `/tasks/${noPushTask}/pushNotificationConfigs`, {
        body: { url: 'https://example.org/h' },
      }),
  },
  {
    name: 'ListTaskPushNotificationConfigs on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    jsonrpc: () => rpc(noPush(), 'ListTaskPushNotificationConfigs', { taskId: noPushTask }),
    rest: () => rest(noPush(), `/tasks/${noPushTask}/pushNotificationConfigs`),
  },
  {
    name: 'Get and Delete of push configs on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    jsonrpc: () => rpc(noPush(), 'GetTaskPushNotificationConfig', { taskId: noPushTask, id: randomUUID() }),
    rest: () =>
      rest(noPush(), `/tasks/${noPushTask}/pushNotificationConfigs/${randomUUID()}`, { method: 'DELETE' }),
  },
  {
    name: 'SendMessage with an inline push config to an agent without push',
    kind: 'PushNotificationNotSupportedError',
    jsonrpc: () =>
      rpc(noPush(), 'SendMessage', {
        ...message([{ data: {} }]),
        configuration: { taskPushNotificationConfig: { url: 'https://example.org/h' } },
      }),
    rest: () =>
      rest(noPush(), '/message:send', {
        body: {
          ...message([{ data: {} }]),
          configuration: { taskPushNotificationConfig: { url: 'https://example.org/h' } },
        },
      }),
  },
  {
    name: 'a message to a terminal task',
    kind: 'UnsupportedOperationError',
    jsonrpc: () => rpc(gen(), 'SendMessage', message([{ text: 'again' }], { taskId: completed })),
    rest: () => rest(gen(), '/message:send', { body: message([{ text: 'again' }], { taskId: completed }) }),
  },
  {
    name: 'a follow-up message to a task that is not waiting for input',
    kind: 'UnsupportedOperationError',
    jsonrpc: () => rpc(runner(), 'SendMessage', message([{ text: 'hurry' }], { taskId: working })),
    rest: () => rest(runner(), '/message:send', { body: message([{ text: 'hurry' }], { taskId: working }) }),
  },
  {
    name: 'SubscribeToTask on a terminal task',
    kind: 'UnsupportedOperationError',
    jsonrpc: () => rpc(gen(), 'SubscribeToTask', { id: completed }),
    rest: () => rest(gen(), `/tasks/${completed}:subscribe`, { method: 'POST' }),
  },
  {
    name: 'GetExtendedAgentCard (the capability is false)',
    kind: 'UnsupportedOperationError',
    jsonrpc: () => rpc(gen(), 'GetExtendedAgentCard'),
    rest: () => rest(gen(), '/extendedAgentCard'),
  },
  {
    name: 'a part whose media type the agent does not accept',
    kind: 'ContentTypeNotSupportedError',
    jsonrpc: () => rpc(gen(), 'SendMessage', message([{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }])),
    rest: () =>
      rest(gen(), '/message:send', {
        body: message([{ url: 'https://example.org/a.pdf', mediaType: 'application/pdf' }]),
      }),
  },
  {
    name: 'no A2A-Version (which means 0.3)',
    kind: 'VersionNotSupportedError',
    jsonrpc: () => rpc(gen(), 'GetTask', { id: completed }, {}),
    rest: () => http(`${gen()}/a2a/rest/tasks/${completed}`),
  },
  {
    name: 'A2A-Version 0.3',
    kind: 'VersionNotSupportedError',
    jsonrpc: () => rpc(gen(), 'GetTask', { id: completed }, { 'A2A-Version': '0.3' }),
    rest: () => rest(gen(), `/tasks/${completed}`, { headers: { 'A2A-Version': '0.3' } }),
  },
  {
    name: 'A2A-Version 2.0 and garbage',
    kind: 'VersionNotSupportedError',
    jsonrpc: () => rpc(gen(), 'ListTasks', {}, { 'A2A-Version': '2.0' }),
    rest: () => rest(gen(), '/tasks', { headers: { 'A2A-Version': 'one' } }),
  },
  {
    name: 'malformed JSON',
    kind: 'JSONParseError',
    jsonrpc: () =>
      http(`${gen()}/a2a/jsonrpc`, {
        raw: '{"jsonrpc":"2.0",',
        headers: { ...V, 'content-type': 'application/json' },
      }),
    rest: () =>
      rest(gen(), '/message:send', {
        raw: '{"message":',
        headers: { 'content-type': 'application/a2a+json' },
      }),
  },
  {
    name: 'not a request: a batch, a wrong jsonrpc, no method / a body of the wrong content type',
    kind: 'InvalidRequestError',
    jsonrpc: () =>
      http(`${gen()}/a2a/jsonrpc`, {
        body: [{ jsonrpc: '2.0', id: 1, method: 'GetTask' }],
        headers: { ...V },
      }),
    rest: () => rest(gen(), '/message:send', { raw: 'hello', headers: { 'content-type': 'text/plain' } }),
    restStatus: 415,
  },
  {
    name: 'an unknown method / route (0.3 method names included)',
    kind: 'MethodNotFoundError',
    jsonrpc: () => rpc(gen(), 'message/send', message([{ text: 'x' }])),
    rest: () => rest(gen(), `/tasks/${completed}:frobnicate`, { method: 'POST' }),
  },
  {
    name: 'a request missing a REQUIRED field',
    kind: 'InvalidParamsError',
    jsonrpc: () => rpc(gen(), 'SendMessage', { message: { role: 'ROLE_USER', parts: [] } }),
    rest: () =>
      rest(gen(), '/message:send', {
        body: { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x' }] } },
      }),
  },
  {
    name: "input that breaks the agent's input schema",
    kind: 'InvalidParamsError',
    jsonrpc: () => rpc(gen(), 'SendMessage', message([{ data: { topic: 'x', filename: '../etc/passwd' } }])),
    rest: () => rest(gen(), '/message:send', { body: message([{ data: { topic: 5 } }]) }),
  },
  {
    name: 'a contextId that is not the task’s',
    kind: 'InvalidParamsError',
    jsonrpc: () =>
      rpc(builder(), 'SendMessage', message([{ text: 'x' }], { taskId: waiting, contextId: randomUUID() })),
    rest: () =>
      rest(builder(), '/message:send', {
        body: message([{ text: 'x' }], { taskId: waiting, contextId: 'other' }),
      }),
  },
  {
    name: 'ListTasks with a pageSize out of range / an unreadable pageToken',
    kind: 'InvalidParamsError',
    jsonrpc: () => rpc(gen(), 'ListTasks', { pageSize: 101 }),
    rest: () => rest(gen(), '/tasks?pageToken=bogus'),
  },
  {
    name: 'a push config whose url is not http(s)',
    kind: 'InvalidParamsError',
    jsonrpc: () =>
      rpc(gen(), 'CreateTaskPushNotificationConfig', { taskId: completed, url: 'file:///etc/passwd' }),
    rest: () =>
      rest(gen(), `/tasks/${completed}/pushNotificationConfigs`, { body: { url: 'ftp://example.org/x' } }),
  },
]

describe('A2A errors on both bindings', () => {
  for (const c of CASES) {
    it(`${c.name} → ${c.kind}`, async () => {
      expectRpc(await c.jsonrpc(), c.kind)
      expectRest(await c.rest(), c.kind, c.restStatus)
    })
  }

  it('a parse error answers id null; other envelope errors keep the id they could read', async () => {
    const parse = await http(`${gen()}/a2a/jsonrpc`, {
      raw: 'nope',
      headers: { ...V, 'content-type': 'application/json' },
    })
    expectRpc(parse, 'JSONParseError', null)
    expectRpc(
      await http(`${gen()}/a2a/jsonrpc`, {
        body: { jsonrpc: '1.0', id: 7, method: 'GetTask' },
        headers: { ...V },
      }),
      'InvalidRequestError',
      7,
    )
    expectRpc(
      await http(`${gen()}/a2a/jsonrpc`, {
        body: { jsonrpc: '2.0', id: 'a', params: {} },
        headers: { ...V },
      }),
      'InvalidRequestError',
      'a',
    )
    expectRpc(
      await http(`${gen()}/a2a/jsonrpc`, { body: { jsonrpc: '2.0', method: 'GetTask' }, headers: { ...V } }),
      'InvalidRequestError',
      null,
    )
    expectRpc(
      await http(`${gen()}/a2a/jsonrpc`, {
        body: { jsonrpc: '2.0', id: 3, method: 'GetTask', params: [1] },
        headers: { ...V },
      }),
      'InvalidRequestError',
      3,
    )
    expectRpc(await rpc(gen(), 'constructor', {}), 'MethodNotFoundError')
  })

  it('validation errors carry a google.rpc.BadRequest naming the fields', async () => {
    const rpcError = expectRpc(
      await rpc(gen(), 'SendMessage', message([{ data: { topic: 'x' } }])),
      'InvalidParamsError',
    )
    assert.deepEqual(
      fieldViolations(rpcError.data).map((v) => v.field),
      ['/input/filename'],
    )
    const restError = expectRest(
      await rest(gen(), '/message:send', { body: { message: { role: 'ROLE_USER' } } }),
      'InvalidParamsError',
    )
    assert.deepEqual(
      fieldViolations(restError.details)
        .map((v) => v.field)
        .sort(),
      ['/message/messageId', '/message/parts'],
    )
    const notObject = expectRpc(
      await rpc(gen(), 'SendMessage', message([{ data: [1, 2] }])),
      'InvalidParamsError',
    )
    assert.deepEqual(
      fieldViolations(notObject.data).map((v) => v.field),
      ['/message/parts/0/data'],
    )
  })

  it('a header-less request is refused with a message saying which version to send', async () => {
    const error = expectRpc(await rpc(gen(), 'GetTask', { id: completed }, {}), 'VersionNotSupportedError')
    assert.match(error.message, /A2A-Version: 1\.0/)
    // The server speaks 0.3 too (the default), but GetTask is a 1.0 method.
    assert.equal(error.data[0].metadata.supported, '1.0,0.3')
  })

  it('a patch number is ignored, and the version may come as a query parameter', async () => {
    const patched = await rpc(gen(), 'GetTask', { id: completed }, { 'A2A-Version': '1.0.7' })
    assert.equal(patched.body.result.id, completed)
    const query = await http(`${gen()}/a2a/rest/tasks/${completed}?A2A-Version=1.0`)
    assert.equal(query.status, 200)
    const rpcQuery = await http(`${gen()}/a2a/jsonrpc?A2A-Version=1.0`, {
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: completed } },
    })
    assert.equal(rpcQuery.body.result.id, completed)
  })

  it('a task-not-found error names the task in its ErrorInfo metadata', async () => {
    const id = randomUUID()
    const error = expectRest(
      await rest(gen(), `/tasks/${id}:cancel`, { method: 'POST', body: {} }),
      'TaskNotFoundError',
    )
    assert.equal(error.details[0].metadata.taskId, id)
  })
})
