/**
 * One JSON-RPC endpoint, two versions: no A2A-Version means 0.3, `A2A-Version: 1.0` means 1.0, and
 * each version's methods, shapes and error objects stay its own; `a2a: { v03: false }` serves 1.0
 * only. Raw HTTP, so every byte of the envelope is seen.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { demoAgents } from '../../src/demo/index.ts'
import { rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { CITATIONS, guarded, SIGNED } from '../fixtures/extension-agents.ts'
import { readSse } from '../helpers/sse.ts'
import { checkV03 } from './helpers.ts'

let server: TestServer
let only10: TestServer
before(async () => {
  server = await startA2a({ agents: [...demoAgents, guarded] })
  only10 = await startA2a({ a2a: { v03: false } })
})
after(async () => {
  await server?.close()
  await only10?.close()
})

const NONE = {}
const V10 = { 'A2A-Version': '1.0' }
const userMessage = (data: object, extra: object = {}) => ({
  message: {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [{ kind: 'data', data }],
    ...extra,
  },
})
const base = (slug = 'long-runner') => server.base(slug)

describe('version selection on the JSON-RPC endpoint', () => {
  it('no A2A-Version is 0.3: message/send answers a bare, kind-tagged Task', async () => {
    const { body } = await rpc(base(), 'message/send', userMessage({ steps: 1, step_ms: 0 }), NONE)
    checkV03('Task', body.result)
    assert.equal(body.result.kind, 'task')
    assert.equal(body.result.status.state, 'completed')
  })

  it('A2A-Version: 1.0 is 1.0, and the task is the same one either way', async () => {
    const created = (await rpc(base(), 'message/send', userMessage({ steps: 1, step_ms: 0 }), NONE)).body
      .result
    const { body } = await rpc(base(), 'GetTask', { id: created.id }, V10)
    assert.equal(body.result.id, created.id)
    assert.equal(body.result.status.state, 'TASK_STATE_COMPLETED')
    assert.equal(body.result.kind, undefined, '1.0 has no kind')
    const v03 = (await rpc(base(), 'tasks/get', { id: created.id }, NONE)).body.result
    assert.deepEqual(v03, created)
  })

  it('a 0.3 method with A2A-Version: 1.0 is MethodNotFound, in 1.0 shape, naming the 1.0 method', async () => {
    const { body } = await rpc(base(), 'message/send', userMessage({}), V10)
    assert.equal(body.error.code, -32601)
    assert.match(body.error.message, /A2A 0\.3 method.*call SendMessage/)
    assert.ok(Array.isArray(body.error.data), '1.0 data is the array of details')
  })

  it('a 1.0 method without A2A-Version keeps the VersionNotSupported answer, in 1.0 shape', async () => {
    const { body } = await rpc(base(), 'SendMessage', {}, NONE)
    assert.equal(body.error.code, -32009)
    assert.match(body.error.message, /send the header A2A-Version: 1\.0/)
    assert.ok(Array.isArray(body.error.data))
  })

  it('0.3 errors are 0.3 objects: an unknown method, a bad envelope, bad params', async () => {
    const unknown = (await rpc(base(), 'tasks/list', {}, NONE)).body
    assert.equal(unknown.error.code, -32601)
    assert.equal(unknown.error.data.reason, 'METHOD_NOT_FOUND')
    checkV03('JSONRPCErrorResponse', unknown)
    const envelope = await fetch(`${base()}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'tasks/get' }),
    })
    const invalid = (await envelope.json()) as { id: number; error: { code: number; data: object } }
    assert.equal(invalid.error.code, -32600)
    assert.equal(invalid.id, 7)
    assert.equal(Array.isArray(invalid.error.data), false)
    const params = (await rpc(base(), 'tasks/get', { id: '', historyLength: -1 }, NONE)).body
    assert.equal(params.error.code, -32602)
    assert.deepEqual(params.error.data.fieldViolations.map((v: { field: string }) => v.field).sort(), [
      '/historyLength',
      '/id',
    ])
  })

  it('a2a.v03 off: 0.3 methods are refused with VersionNotSupported; 1.0 is served', async () => {
    const { body } = await rpc(only10.base('long-runner'), 'message/send', userMessage({ steps: 1 }), NONE)
    assert.equal(body.error.code, -32009)
    assert.match(body.error.message, /speaks A2A 1\.0 only/)
    const served = await rpc(only10.base('long-runner'), 'GetTask', { id: randomUUID() }, V10)
    assert.equal(served.body.error.code, -32001)
  })
})

describe('0.3 streams over JSON-RPC', () => {
  const stream = (method: string, params: object, headers: Record<string, string> = {}) =>
    readSse(`${base()}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method, params }),
      timeoutMs: 20_000,
    })

  it('every event is a JSON-RPC response carrying a 0.3 event, with the task event sequence as id', async () => {
    const { events, closedByServer } = await stream('message/stream', userMessage({ steps: 2, step_ms: 1 }))
    assert.ok(closedByServer)
    const responses = events.map((e) => JSON.parse(e.data))
    for (const response of responses) {
      assert.equal(response.id, 'req-1')
      checkV03('SendStreamingMessageSuccessResponse', response)
    }
    assert.ok(events[0]?.id !== undefined, 'the Task carries its version')
    const finals = responses.filter((r) => r.result.final === true)
    assert.equal(finals.length, 1)
    assert.equal(responses.at(-1), finals[0])
  })

  it('Last-Event-ID resumes tasks/resubscribe after that event, with nothing twice', async () => {
    const first = await stream('message/stream', userMessage({ steps: 3, step_ms: 1 }))
    const taskId = JSON.parse(first.events[0]!.data).result.id
    const ids = first.events.flatMap((e) => (e.id === undefined ? [] : [e.id]))
    const cut = ids[1]!
    const resumed = await stream('tasks/resubscribe', { id: taskId }, { 'Last-Event-ID': cut })
    const after = first.events.slice(first.events.findIndex((e) => e.id === cut) + 1)
    assert.deepEqual(
      resumed.events.map((e) => JSON.parse(e.data).result),
      after.map((e) => JSON.parse(e.data).result),
    )
  })

  it('a stream that cannot start is one SSE error event, in 0.3 shape', async () => {
    const { status, events, closedByServer } = await stream('tasks/resubscribe', { id: randomUUID() })
    assert.equal(status, 200)
    assert.ok(closedByServer)
    assert.equal(events.length, 1)
    const body = JSON.parse(events[0]!.data)
    assert.equal(body.error.code, -32001)
    assert.equal(body.error.data.reason, 'TASK_NOT_FOUND')
  })
})

describe('extensions over 0.3', () => {
  it('reads X-A2A-Extensions and echoes the activated ones there', async () => {
    const headers = { 'X-A2A-Extensions': `${SIGNED}, ${CITATIONS}` }
    const answer = await rpc(base('guarded'), 'message/send', userMessage({}), headers)
    assert.equal(answer.body.result.status.state, 'completed')
    assert.equal(answer.headers.get('x-a2a-extensions'), `${SIGNED},${CITATIONS}`)
    assert.equal(answer.headers.get('a2a-extensions'), null)
    const output = answer.body.result.artifacts.find((a: { name: string }) => a.name === 'output')
    assert.deepEqual(output.parts[0].data, { extensions: [SIGNED, CITATIONS] })
  })

  it('a required extension not activated is InvalidRequest (0.3 has no -32008), naming it', async () => {
    const { body } = await rpc(base('guarded'), 'message/send', userMessage({}), NONE)
    assert.equal(body.error.code, -32600)
    assert.equal(body.error.data.reason, 'EXTENSION_SUPPORT_REQUIRED')
    assert.match(body.error.message, /X?-?A2A-Extensions/)
  })
})
