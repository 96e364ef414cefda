/**
 * ProtoJSON input rules on every request, on both bindings: each field under its proto name
 * (`task_id`, `history_length`, nested ones too, and REST query parameters) as well as its JSON
 * name; the same field under both refused as InvalidParams with nothing stored; `null` as absent;
 * int32 as a decimal string; unknown fields ignored. Responses stay in lowerCamelCase.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { TSchema } from '@sinclair/typebox'
import { protoJsonReader, protoName } from '../../src/dialects/a2a/wire/read.ts'
import {
  CreatePushConfigRequest,
  ExtendedCardRequest,
  GetTaskRequest,
  InboundMessage,
  ListPushConfigsRequest,
  ListTasksRequest,
  PushConfigRequest,
  SendMessageRequest,
  TaskIdRequest,
} from '../../src/dialects/a2a/wire/requests.ts'
import { A2aPart, AuthenticationInfo } from '../../src/dialects/a2a/wire/shapes.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import {
  BINDINGS,
  type Binding,
  type HttpResult,
  rest,
  rpc,
  startA2a,
  startReceiver,
  type TestServer,
} from './helpers.ts'

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
const builder = () => server.base('report-builder')

/** The published v1.0.1 schema: its definitions list each field's proto name as a patternProperty. */
const published = JSON.parse(
  readFileSync(new URL('../fixtures/spec/a2a-v1.0.1.json', import.meta.url), 'utf8'),
) as { definitions: Record<string, { properties?: object; patternProperties?: object }> }

/** Every request message of A2A 1.0.1 (and the messages nested in them) → the schema we check it with. */
const REQUEST_MESSAGES: Record<string, TSchema> = {
  'Send Message Request': SendMessageRequest,
  'Send Message Configuration': SendMessageRequest.properties.configuration,
  Message: InboundMessage,
  Part: A2aPart,
  'Task Push Notification Config': CreatePushConfigRequest,
  'Authentication Info': AuthenticationInfo,
  'Get Task Request': GetTaskRequest,
  'List Tasks Request': ListTasksRequest,
  'Cancel Task Request': TaskIdRequest,
  'Subscribe To Task Request': TaskIdRequest,
  'Get Task Push Notification Config Request': PushConfigRequest,
  'Delete Task Push Notification Config Request': PushConfigRequest,
  'List Task Push Notification Configs Request': ListPushConfigsRequest,
  'Get Extended Agent Card Request': ExtendedCardRequest,
}

const sendRpcOrRest = (binding: Binding, base: string, params: object): Promise<HttpResult> =>
  binding === 'JSONRPC' ? rpc(base, 'SendMessage', params) : rest(base, '/message:send', { body: params })

/** The answer of a successful call on either binding. */
const ok = (binding: Binding, response: HttpResult) => {
  if (binding === 'JSONRPC') {
    assert.equal(response.body.error, undefined, JSON.stringify(response.body.error))
    return response.body.result
  }
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** The field violations of an InvalidParams answer on either binding. */
const invalidParams = (binding: Binding, response: HttpResult): string[] => {
  if (binding === 'JSONRPC') assert.equal(response.body.error?.code, -32602, JSON.stringify(response.body))
  else assert.equal(response.status, 400, JSON.stringify(response.body))
  const details = binding === 'JSONRPC' ? response.body.error.data : response.body.error.details
  const badRequest = details.find(
    (d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  )
  return badRequest.fieldViolations.map((v: { field: string }) => v.field)
}

const getTask = (binding: Binding, base: string, id: string, params: Record<string, unknown> = {}) =>
  binding === 'JSONRPC'
    ? rpc(base, 'GetTask', { id, ...params })
    : rest(base, `/tasks/${id}?${new URLSearchParams(params as Record<string, string>)}`)

const listTasks = (binding: Binding, base: string, params: Record<string, unknown>) =>
  binding === 'JSONRPC'
    ? rpc(base, 'ListTasks', params)
    : rest(base, `/tasks?${new URLSearchParams(params as Record<string, string>)}`)

/** Every key of a response outside the free-form parts (data, metadata): all lowerCamelCase. */
const protoNamedKeys = (value: unknown, found: string[] = []): string[] => {
  if (Array.isArray(value)) for (const item of value) protoNamedKeys(item, found)
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('_')) found.push(key)
      if (key !== 'data' && key !== 'metadata') protoNamedKeys(item, found)
    }
  }
  return found
}

describe('A2A ProtoJSON input', () => {
  it('every field of every 1.0.1 request message is read under the proto name the spec gives it', () => {
    for (const [name, schema] of Object.entries(REQUEST_MESSAGES)) {
      const definition = published.definitions[name]
      assert.ok(definition, name)
      const read = protoJsonReader(schema)
      const ours = Object.keys(schema.properties)
      for (const field of Object.keys(definition.properties ?? {}))
        assert.ok(ours.includes(field), `${name}.${field} is in our schema`)
      const aliases = Object.keys(definition.patternProperties ?? {}).map(
        (p) => /^\^\((\w+)\)\$$/.exec(p)![1]!,
      )
      for (const alias of aliases) {
        const field = ours.find((f) => protoName(f) === alias)
        assert.ok(field, `${name}: the proto name ${alias} belongs to one of our fields`)
        const { message, violations } = read({ [alias]: 'x' })
        assert.deepEqual(violations, [])
        assert.deepEqual(message, { [field]: 'x' }, `${name}.${alias} is read as ${field}`)
      }
    }
  })

  for (const binding of BINDINGS) {
    describe(binding, () => {
      it('SendMessage in proto names: message, parts, configuration and its push config are read', async () => {
        const contextId = randomUUID()
        const csv = Buffer.from('a,b').toString('base64')
        const result = ok(
          binding,
          await sendRpcOrRest(binding, echo(), {
            message: {
              message_id: randomUUID(),
              role: 'ROLE_USER',
              context_id: contextId,
              reference_task_ids: [],
              // Only a text/* media type joins a raw part into the text: `media_type` was read.
              // Free-form values (data, metadata) keep their own keys: only message fields are renamed.
              parts: [
                { data: { page_size: 1, taskId: null }, metadata: { task_id: 'x' } },
                { raw: csv, media_type: 'text/csv', filename: 'x.csv' },
              ],
            },
            configuration: {
              history_length: 0,
              accepted_output_modes: ['application/json'],
              task_push_notification_config: {
                url: receiver.url,
                token: 'tok',
                authentication: { scheme: 'Bearer', credentials: 'secret' },
              },
            },
          }),
        )
        checkA2a('SendMessageResponse', result)
        const { task } = result
        assert.equal(task.contextId, contextId)
        assert.equal(task.history, undefined, 'history_length 0 leaves the history out')
        const output = task.artifacts.find((a: { name: string }) => a.name === 'output').parts[0].data
        assert.deepEqual(output, { input: { page_size: 1, taskId: null }, text: 'a,b', parts: 2 })
        assert.deepEqual(protoNamedKeys(result), [], 'the response is in lowerCamelCase')
        const configs = ok(
          'JSONRPC',
          await rpc(echo(), 'ListTaskPushNotificationConfigs', { task_id: task.id }),
        )
        assert.deepEqual(
          configs.configs.map((c: { url: string; token: string }) => [c.url, c.token]),
          [[receiver.url, 'tok']],
        )
      })

      it('return_immediately is read: SendMessage answers before the task is settled', async () => {
        const params = (configuration: object) => ({
          message: { message_id: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'owls' }] },
          configuration,
        })
        const blocking = ok(binding, await sendRpcOrRest(binding, builder(), params({})))
        assert.equal(blocking.task.status.state, 'TASK_STATE_INPUT_REQUIRED')
        const immediate = ok(
          binding,
          await sendRpcOrRest(binding, builder(), params({ return_immediately: true })),
        )
        assert.equal(immediate.task.status.state, 'TASK_STATE_SUBMITTED')
        await rpc(builder(), 'CancelTask', { id: immediate.task.id })
        await rpc(builder(), 'CancelTask', { id: blocking.task.id })
      })

      it('GetTask reads history_length; an int32 may be a decimal string and null is absent', async () => {
        const { task } = ok(
          binding,
          await sendRpcOrRest(binding, echo(), {
            message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
          }),
        )
        assert.equal(task.history.length, 1)
        const without = ok(binding, await getTask(binding, echo(), task.id, { history_length: 0 }))
        assert.equal(without.history, undefined, 'history_length 0 leaves the history out')
        assert.deepEqual(protoNamedKeys(without), [])
        if (binding === 'JSONRPC') {
          const asString = ok(binding, await rpc(echo(), 'GetTask', { id: task.id, historyLength: '0' }))
          assert.equal(asString.history, undefined)
          const asNull = ok(binding, await rpc(echo(), 'GetTask', { id: task.id, history_length: null }))
          assert.equal(asNull.history.length, 1, 'null is the default: the whole history')
        }
      })

      it('ListTasks reads context_id, page_size, page_token, history_length, include_artifacts', async () => {
        const contextId = randomUUID()
        for (let i = 0; i < 2; i++) {
          ok(
            binding,
            await sendRpcOrRest(binding, echo(), {
              message: { messageId: randomUUID(), role: 'ROLE_USER', contextId, parts: [{ data: { i } }] },
            }),
          )
        }
        const query = { context_id: contextId, page_size: 1, history_length: 0, include_artifacts: true }
        const first = ok(binding, await listTasks(binding, echo(), query))
        checkA2a('ListTasksResponse', first)
        assert.equal(first.tasks.length, 1)
        assert.equal(first.totalSize, 2)
        assert.equal(first.pageSize, 1)
        assert.notEqual(first.nextPageToken, '')
        assert.ok(Array.isArray(first.tasks[0].artifacts), 'include_artifacts was read')
        assert.equal(first.tasks[0].history, undefined, 'history_length was read')
        const second = ok(
          binding,
          await listTasks(binding, echo(), { ...query, page_token: first.nextPageToken }),
        )
        assert.equal(second.tasks.length, 1)
        assert.notEqual(second.tasks[0].id, first.tasks[0].id)
        assert.equal(second.nextPageToken, '')
      })

      it('push config operations read task_id and page_size', async () => {
        const { task } = ok(
          binding,
          await sendRpcOrRest(binding, echo(), {
            message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
          }),
        )
        const id = `cfg-${randomUUID()}`
        const body = { id, url: receiver.url }
        const created = ok(
          binding,
          binding === 'JSONRPC'
            ? await rpc(echo(), 'CreateTaskPushNotificationConfig', { ...body, task_id: task.id })
            : // The path names the task: a task_id in the body is overridden, not a second value.
              await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs`, {
                body: { ...body, task_id: randomUUID() },
              }),
        )
        assert.deepEqual(created, { id, taskId: task.id, url: receiver.url })
        const got = ok(
          binding,
          binding === 'JSONRPC'
            ? await rpc(echo(), 'GetTaskPushNotificationConfig', { task_id: task.id, id })
            : await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs/${id}`),
        )
        assert.deepEqual(got, created)
        const listed = ok(
          binding,
          binding === 'JSONRPC'
            ? await rpc(echo(), 'ListTaskPushNotificationConfigs', { task_id: task.id, page_size: 5 })
            : await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs?page_size=5`),
        )
        assert.deepEqual(listed.configs, [created])
        ok(
          binding,
          binding === 'JSONRPC'
            ? await rpc(echo(), 'DeleteTaskPushNotificationConfig', { task_id: task.id, id })
            : await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs/${id}`, { method: 'DELETE' }),
        )
        const after = ok('JSONRPC', await rpc(echo(), 'ListTaskPushNotificationConfigs', { taskId: task.id }))
        assert.deepEqual(after.configs, [])
      })

      it('one field under both its names is InvalidParams, and nothing is stored', async () => {
        const contextId = randomUUID()
        const refused = await sendRpcOrRest(binding, echo(), {
          message: {
            messageId: randomUUID(),
            message_id: randomUUID(),
            role: 'ROLE_USER',
            contextId,
            parts: [{ data: {} }],
          },
        })
        assert.deepEqual(invalidParams(binding, refused), ['/message/messageId'])
        const nested = await sendRpcOrRest(binding, echo(), {
          message: { messageId: randomUUID(), role: 'ROLE_USER', contextId, parts: [{ data: {} }] },
          configuration: { historyLength: 1, history_length: 2 },
        })
        assert.deepEqual(invalidParams(binding, nested), ['/configuration/historyLength'])
        const listed = ok(binding, await listTasks(binding, echo(), { contextId }))
        assert.equal(listed.totalSize, 0, 'no task was created')
        const query =
          binding === 'JSONRPC'
            ? await rpc(echo(), 'ListTasks', { pageSize: 1, page_size: 1 })
            : await rest(echo(), '/tasks?pageSize=1&page_size=1')
        assert.deepEqual(invalidParams(binding, query), ['/pageSize'])
      })

      it('unknown fields are ignored, at the top and nested', async () => {
        const result = ok(
          binding,
          await sendRpcOrRest(binding, echo(), {
            message: {
              kind: 'message',
              messageId: randomUUID(),
              role: 'ROLE_USER',
              parts: [{ kind: 'data', data: { k: 1 }, somethingNew: true }],
            },
            configuration: { blocking: true, pushNotificationConfig: { url: 'ftp://x' } },
            futureField: { x: 1 },
          }),
        )
        assert.equal(result.task.status.state, 'TASK_STATE_COMPLETED')
        const output = result.task.artifacts.find((a: { name: string }) => a.name === 'output').parts[0].data
        assert.deepEqual(output.input, { k: 1 })
      })
    })
  }
})
