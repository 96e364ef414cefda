/**
 * The error table of the HTTP bindings (test/a2a/errors.test.ts) on gRPC: each A2A error with the
 * gRPC status code of the v1.0.1 table and the same google.rpc.ErrorInfo (reason, domain
 * a2a-protocol.org, metadata) in `grpc-status-details-bin`; invalid parameters add a
 * google.rpc.BadRequest. What gRPC itself answers (an unknown method: UNIMPLEMENTED, an unreadable
 * message: INTERNAL) never reaches the binding and is not A2A's to map.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { JsonValue } from '@bufbuild/protobuf'
import { type Client, Metadata, status } from '@grpc/grpc-js'
import { A2A_ERRORS, type A2aErrorKind } from '../../src/dialects/a2a/errors.ts'
import { rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { callAny, detailsOf, grpcAddressOf, metadataOf, rawClient } from './helpers.ts'

let server: TestServer
let client: Client
let completed: string
let working: string
let waiting: string
let noPushTask: string

const message = (parts: unknown[], extra: object = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra },
})

before(async () => {
  server = await startA2a()
  client = rawClient(grpcAddressOf(server))
  const gen = server.base('python-script-generator')
  completed = (await rpc(gen, 'SendMessage', message([{ data: { topic: 'x', filename: 'x.py' } }]))).body
    .result.task.id
  const run = await rpc(server.base('long-runner'), 'SendMessage', {
    ...message([{ data: { steps: 1000, step_ms: 50 } }]),
    configuration: { returnImmediately: true },
  })
  working = run.body.result.task.id
  waiting = (await rpc(server.base('report-builder'), 'SendMessage', message([{ text: 'owls' }]))).body.result
    .task.id
  noPushTask = (await rpc(server.base('no-push'), 'SendMessage', message([{ data: {} }]))).body.result.task.id
})
after(async () => {
  await rpc(server.base('long-runner'), 'CancelTask', { id: working })
  client.close()
  await server.close()
})

interface Case {
  name: string
  kind: A2aErrorKind
  method: string
  /** The request as ProtoJSON; `tenant` names the agent (default: the python-script-generator). */
  request: () => JsonValue
  metadata?: Record<string, string>
  /** ErrorInfo metadata the error must carry. */
  info?: Record<string, string>
  /** Field paths a google.rpc.BadRequest must name. */
  fields?: string[]
}

const GEN = 'python-script-generator'
const at = (tenant: string, json: Record<string, unknown>) => ({ tenant, ...json })

const CASES: Case[] = [
  {
    name: 'GetTask of an unknown task',
    kind: 'TaskNotFoundError',
    method: 'getTask',
    request: () => at(GEN, { id: randomUUID() }),
  },
  {
    name: 'GetTask of an id that is not ours at all',
    kind: 'TaskNotFoundError',
    method: 'getTask',
    request: () => at(GEN, { id: 'tasks/../../etc' }),
    info: { taskId: 'tasks/../../etc' },
  },
  {
    name: "GetTask of another agent's task",
    kind: 'TaskNotFoundError',
    method: 'getTask',
    request: () => at('long-runner', { id: completed }),
  },
  {
    name: 'GetTask under a tenant that names no agent',
    kind: 'TaskNotFoundError',
    method: 'getTask',
    request: () => at('no-such-agent', { id: completed }),
  },
  {
    name: 'ListTasks under a tenant that names no agent',
    kind: 'MethodNotFoundError',
    method: 'listTasks',
    request: () => at('no-such-agent', {}),
    info: { code: 'AGENT_NOT_FOUND', tenant: 'no-such-agent' },
  },
  {
    name: 'a follow-up message to an unknown task',
    kind: 'TaskNotFoundError',
    method: 'sendMessage',
    request: () => at(GEN, message([{ text: 'x' }], { taskId: randomUUID() })),
  },
  {
    name: 'Get of a push config that does not exist',
    kind: 'TaskNotFoundError',
    method: 'getTaskPushNotificationConfig',
    request: () => at(GEN, { taskId: completed, id: randomUUID() }),
  },
  {
    name: 'CancelTask of a completed task',
    kind: 'TaskNotCancelableError',
    method: 'cancelTask',
    request: () => at(GEN, { id: completed }),
  },
  {
    name: 'CreateTaskPushNotificationConfig on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    method: 'createTaskPushNotificationConfig',
    request: () => at('no-push', { taskId: noPushTask, url: 'https://example.org/h' }),
  },
  {
    name: 'ListTaskPushNotificationConfigs on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    method: 'listTaskPushNotificationConfigs',
    request: () => at('no-push', { taskId: noPushTask }),
  },
  {
    name: 'Delete of a push config on an agent without push',
    kind: 'PushNotificationNotSupportedError',
    method: 'deleteTaskPushNotificationConfig',
    request: () => at('no-push', { taskId: noPushTask, id: randomUUID() }),
  },
  {
    name: 'SendMessage with an inline push config to an agent without push',
    kind: 'PushNotificationNotSupportedError',
    method: 'sendMessage',
    request: () =>
      at('no-push', {
        ...message([{ data: {} }]),
        configuration: { taskPushNotificationConfig: { url: 'https://example.org/h' } },
      }),
  },
  {
    name: 'a message to a terminal task',
    kind: 'UnsupportedOperationError',
    method: 'sendMessage',
    request: () => at(GEN, message([{ text: 'again' }], { taskId: completed })),
  },
  {
    name: 'a follow-up message to a task that is not waiting for input',
    kind: 'UnsupportedOperationError',
    method: 'sendMessage',
    request: () => at('long-runner', message([{ text: 'hurry' }], { taskId: working })),
  },
  {
    name: 'SubscribeToTask on a terminal task',
    kind: 'UnsupportedOperationError',
    method: 'subscribeToTask',
    request: () => at(GEN, { id: completed }),
  },
  {
    name: 'GetExtendedAgentCard (the capability is false)',
    kind: 'UnsupportedOperationError',
    method: 'getExtendedAgentCard',
    request: () => at(GEN, {}),
  },
  {
    name: 'a part whose media type the agent does not accept',
    kind: 'ContentTypeNotSupportedError',
    method: 'sendStreamingMessage',
    request: () => at(GEN, message([{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }])),
  },
  {
    name: 'a2a-version 0.3 (0.3 gRPC is another service, a2a.v1)',
    kind: 'VersionNotSupportedError',
    method: 'getTask',
    request: () => at(GEN, { id: completed }),
    metadata: { 'a2a-version': '0.3' },
    info: { requested: '0.3', supported: '1.0' },
  },
  {
    name: 'a2a-version 2.0 and garbage',
    kind: 'VersionNotSupportedError',
    method: 'listTasks',
    request: () => at(GEN, {}),
    metadata: { 'a2a-version': 'one' },
  },
  {
    name: 'a request missing a REQUIRED field',
    kind: 'InvalidParamsError',
    method: 'sendMessage',
    request: () => at(GEN, { message: { role: 'ROLE_USER', parts: [] } }),
    fields: ['/message/messageId', '/message/parts'],
  },
  {
    name: "input that breaks the agent's input schema",
    kind: 'InvalidParamsError',
    method: 'sendMessage',
    request: () => at(GEN, message([{ data: { topic: 'x', filename: '../etc/passwd' } }])),
  },
  {
    name: 'a contextId that is not the task’s',
    kind: 'InvalidParamsError',
    method: 'sendMessage',
    request: () =>
      at('report-builder', message([{ text: 'x' }], { taskId: waiting, contextId: randomUUID() })),
  },
  {
    name: 'ListTasks with a pageSize out of range',
    kind: 'InvalidParamsError',
    method: 'listTasks',
    request: () => at(GEN, { pageSize: 101 }),
  },
  {
    name: 'a push config whose url is not http(s)',
    kind: 'InvalidParamsError',
    method: 'createTaskPushNotificationConfig',
    request: () => at(GEN, { taskId: completed, url: 'file:///etc/passwd' }),
  },
  {
    name: 'SubscribeToTask with a last-event-id that is no sequence',
    kind: 'InvalidParamsError',
    method: 'subscribeToTask',
    request: () => at('long-runner', { id: working }),
    metadata: { 'last-event-id': 'yesterday' },
  },
]

describe('A2A errors on gRPC', () => {
  for (const c of CASES) {
    it(`${c.name} → ${A2A_ERRORS[c.kind].status} ${A2A_ERRORS[c.kind].reason}`, async () => {
      const metadata = c.metadata ? metadataOf(c.metadata) : new Metadata()
      const { error, response } = await callAny(client, c.method, c.request(), metadata)
      assert.ok(error, `an error, not ${JSON.stringify(response)}`)
      assert.equal(error.code, status[A2A_ERRORS[c.kind].status], `${error.code} ${error.details}`)
      assert.ok(error.details.length > 0, 'a message')
      const details = detailsOf(error)
      assert.equal(details.code, error.code, 'the Status in the trailer has the call’s code')
      assert.equal(details.message, error.details)
      assert.equal(details.errorInfo?.reason, A2A_ERRORS[c.kind].reason)
      assert.equal(details.errorInfo?.domain, 'a2a-protocol.org')
      for (const [key, value] of Object.entries(c.info ?? {}))
        assert.equal(details.errorInfo?.metadata[key], value, `ErrorInfo metadata ${key}`)
      if (c.kind === 'InvalidParamsError') {
        if (c.fields) {
          const named = details.badRequest?.fieldViolations.map((v) => v.field) ?? []
          for (const field of c.fields)
            assert.ok(named.includes(field), `BadRequest names ${field}: ${named}`)
        }
      } else assert.equal(details.badRequest, undefined, 'BadRequest only for invalid parameters')
    })
  }

  it('a task-not-found error names the task in its ErrorInfo metadata', async () => {
    const id = randomUUID()
    const { error } = await callAny(client, 'getTask', at(GEN, { id }))
    assert.equal(detailsOf(error!).errorInfo?.metadata.taskId, id)
  })

  it('no a2a-version is served as 1.0; 1.0 with a patch number too', async () => {
    for (const metadata of [new Metadata(), metadataOf({ 'a2a-version': '1.0.1' })]) {
      const { error, response } = await callAny(client, 'getTask', at(GEN, { id: completed }), metadata)
      assert.equal(error, undefined)
      assert.equal((response as { id: string }).id, completed)
    }
  })
})
