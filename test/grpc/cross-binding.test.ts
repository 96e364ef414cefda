/**
 * One task across bindings: created over gRPC, read over JSON-RPC and Clawpedia; created over
 * Clawpedia and JSON-RPC, answered, followed and cancelled over gRPC. The default agent (empty
 * tenant) and its slug are the same agent.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { JsonValue } from '@bufbuild/protobuf'
import type { Client } from '@grpc/grpc-js'
import { http, rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { callAny, grpcAddressOf, rawClient, requestOf, stream } from './helpers.ts'

let server: TestServer
let client: Client
before(async () => {
  server = await startA2a()
  client = rawClient(grpcAddressOf(server))
})
after(async () => {
  client.close()
  await server.close()
})

type Task = { id: string; contextId: string; status: { state: string }; history?: unknown[] }
const message = (parts: JsonValue[], extra: Record<string, JsonValue> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
})

describe('one task, every binding', () => {
  it('created over gRPC → read over JSON-RPC, HTTP+JSON and Clawpedia, the same task', async () => {
    const sent = await callAny(client, 'sendMessage', {
      tenant: 'python-script-generator',
      message: message([{ data: { topic: 'primes', filename: 'primes.py' } }]),
    })
    const task = (sent.response as { task: Task }).task
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
    const base = server.base('python-script-generator')
    const overRpc = await rpc(base, 'GetTask', { id: task.id })
    checkA2a('Task', overRpc.body.result)
    assert.deepEqual(overRpc.body.result, task, 'JSON-RPC shows exactly what gRPC answered')
    const clawpedia = await http(`${base}/tasks/${task.id}`)
    assert.equal(clawpedia.body.status, 'COMPLETED')
    assert.equal(clawpedia.body.task_id, task.id)
    // The default agent at the root (empty tenant on gRPC) is the same agent.
    const viaDefault = await callAny(client, 'getTask', { id: task.id })
    assert.equal((viaDefault.response as Task).id, task.id)
    const elsewhere = await callAny(client, 'getTask', { tenant: 'long-runner', id: task.id })
    assert.equal(elsewhere.error?.code, 5, 'another agent does not have it (NOT_FOUND)')
  })

  it('created over Clawpedia → answered over gRPC → read over JSON-RPC', async () => {
    const base = server.base('report-builder')
    const created = await http(`${base}/tasks`, { body: { input: { subject: 'whales' } } })
    const taskId: string = created.body.task_id
    // Wait for the question over gRPC: SubscribeToTask ends when the task asks for input.
    const followed = await stream(
      client,
      'subscribeToTask',
      requestOf('subscribeToTask', { tenant: 'report-builder', id: taskId }),
    )
    const last = followed.messages.at(-1) as { statusUpdate?: { status: { state: string } }; task?: Task }
    assert.equal(last.statusUpdate?.status.state ?? last.task?.status.state, 'TASK_STATE_INPUT_REQUIRED')
    const answered = await callAny(client, 'sendMessage', {
      tenant: 'report-builder',
      message: message([{ data: { sections: ['Songs'] } }], { taskId }),
    })
    assert.equal(answered.error, undefined, answered.error?.details)
    assert.equal((answered.response as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED')
    const overRpc = await rpc(base, 'GetTask', { id: taskId })
    assert.equal(overRpc.body.result.status.state, 'TASK_STATE_COMPLETED')
    assert.equal((await http(`${base}/tasks/${taskId}`)).body.status, 'COMPLETED')
  })

  it('created over JSON-RPC → cancelled over gRPC → Clawpedia reads CANCELLED', async () => {
    const base = server.base('long-runner')
    const sent = await rpc(base, 'SendMessage', {
      message: message([{ data: { steps: 1000, step_ms: 20 } }]),
      configuration: { returnImmediately: true },
    })
    const id: string = sent.body.result.task.id
    const cancelled = await callAny(client, 'cancelTask', { tenant: 'long-runner', id })
    assert.equal((cancelled.response as Task).status.state, 'TASK_STATE_CANCELED')
    assert.equal((await http(`${base}/tasks/${id}`)).body.status, 'CANCELLED')
  })
})
