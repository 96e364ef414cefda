/**
 * One task, any version: a task created over A2A 0.3 is followed over 1.0 and cancelled over
 * Clawpedia, and one created over Clawpedia is read, answered and streamed over 0.3.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { followFromFirstEvent, http, readSse, rest, startA2a, type TestServer, V } from '../a2a/helpers.ts'
import { validateV03 } from '../helpers/a2a-v03-schema.ts'

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server.close())

/** A 0.3 JSON-RPC call: no A2A-Version header, slash-named method. */
const rpc03 = (base: string, method: string, params: unknown) =>
  http(`${base}/a2a/jsonrpc`, { body: { jsonrpc: '2.0', id: 1, method, params } })

const userMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts,
  ...extra,
})

describe('one task across A2A 0.3, A2A 1.0 and Clawpedia', () => {
  it('0.3 message/send → 1.0 SubscribeToTask → Clawpedia cancel → 0.3 tasks/get: canceled', async () => {
    const base = server.base('long-runner')
    const sent = await rpc03(base, 'message/send', {
      message: userMessage([{ kind: 'data', data: { steps: 500, step_ms: 20 } }]),
      configuration: { blocking: false },
    })
    assert.equal(sent.status, 200)
    const task = sent.body.result
    assert.deepEqual(validateV03('Task', task), [])
    assert.equal(task.kind, 'task')

    const { stream: subscription } = await followFromFirstEvent(
      `${base}/a2a/rest/tasks/${task.id}:subscribe`,
      {
        method: 'POST',
        headers: { ...V },
      },
    )
    const cancelled = await http(`${base}/tasks/${task.id}/cancel`, { method: 'POST' })
    assert.equal(cancelled.body.status, 'CANCELLED')

    const stream = await subscription
    assert.ok(stream.closedByServer, 'the 1.0 subscription ends at the terminal state')
    const responses = stream.events.map((e) => JSON.parse(e.data))
    assert.equal(responses[0].task.id, task.id)
    assert.equal(responses.at(-1).statusUpdate.status.state, 'TASK_STATE_CANCELED')

    const read = await rpc03(base, 'tasks/get', { id: task.id })
    assert.deepEqual(validateV03('Task', read.body.result), [])
    assert.equal(read.body.result.status.state, 'canceled')
    assert.equal(read.body.result.contextId, task.contextId)
  })

  it('Clawpedia POST /tasks → 0.3 tasks/get (input-required) → 0.3 answer → 1.0 GetTask: completed', async () => {
    const base = server.base('report-builder')
    const created = await http(`${base}/tasks`, { body: { input: { subject: 'whales' } } })
    const taskId: string = created.body.task_id
    await readSse(`${base}/tasks/${taskId}/stream`, {
      stopWhen: (e) => e.event === 'status' && JSON.parse(e.data).status === 'INPUT_REQUIRED',
    })

    const waiting = await rpc03(base, 'tasks/get', { id: taskId })
    assert.deepEqual(validateV03('Task', waiting.body.result), [])
    assert.equal(waiting.body.result.status.state, 'input-required')
    const question = waiting.body.result.status.message
    assert.equal(question.kind, 'message')
    assert.equal(question.role, 'agent')
    assert.match(question.parts[0].text, /whales/)

    const answered = await rpc03(base, 'message/send', {
      message: userMessage([{ kind: 'data', data: { sections: ['Songs', 'Migration'] } }], {
        taskId,
        contextId: waiting.body.result.contextId,
      }),
    })
    assert.equal(answered.body.result.kind, 'task')
    assert.equal(answered.body.result.status.state, 'completed')

    const got = await rest(base, `/tasks/${taskId}`, { headers: { ...V } })
    assert.equal(got.body.status.state, 'TASK_STATE_COMPLETED')
    const clawpedia = await http(`${base}/tasks/${taskId}`)
    assert.equal(clawpedia.body.status, 'COMPLETED')
  })

  it('1.0 SendMessage → 0.3 tasks/resubscribe → 1.0 CancelTask: the 0.3 stream ends final: true', async () => {
    const base = server.base('long-runner')
    const sent = await rest(base, '/message:send', {
      headers: { ...V },
      body: {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ data: { steps: 500, step_ms: 20 } }],
        },
        configuration: { returnImmediately: true },
      },
    })
    const taskId: string = sent.body.task.id
    const { stream: subscription } = await followFromFirstEvent(`${base}/a2a/jsonrpc`, {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 7, method: 'tasks/resubscribe', params: { id: taskId } },
    })
    const cancelled = await rest(base, `/tasks/${taskId}:cancel`, { method: 'POST', headers: { ...V } })
    assert.equal(cancelled.body.status.state, 'TASK_STATE_CANCELED')

    const stream = await subscription
    assert.ok(stream.closedByServer)
    const responses = stream.events.map((e) => JSON.parse(e.data))
    for (const response of responses) assert.equal(response.id, 7)
    const results = responses.map((r) => r.result)
    assert.equal(results[0].kind, 'task')
    for (const result of results)
      assert.ok(['task', 'status-update', 'artifact-update'].includes(result.kind), result.kind)
    const last = results.at(-1)
    assert.equal(last.kind, 'status-update')
    assert.equal(last.status.state, 'canceled')
    assert.equal(last.final, true)
    assert.equal(results.filter((r) => r.final === true).length, 1, 'only the last event is final')
  })
})
