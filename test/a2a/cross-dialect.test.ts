/**
 * One engine, two dialects: a task created over Clawpedia is followed and cancelled over A2A and
 * read back over Clawpedia, and the other way round; states map both ways.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { followFromFirstEvent, http, readSse, rpc, startA2a, type TestServer, V } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server.close())

describe('Clawpedia and A2A on the same tasks', () => {
  it('Clawpedia POST /tasks → A2A SubscribeToTask → JSON-RPC CancelTask → Clawpedia GET: CANCELLED', async () => {
    const base = server.base('long-runner')
    const created = await http(`${base}/tasks`, { body: { input: { steps: 500, step_ms: 20 } } })
    assert.equal(created.status, 202)
    const taskId: string = created.body.task_id

    const { stream: subscription } = await followFromFirstEvent(
      `${base}/a2a/rest/tasks/${taskId}:subscribe`,
      {
        method: 'POST',
        headers: { ...V },
      },
    )

    const cancelled = await rpc(base, 'CancelTask', { id: taskId })
    checkA2a('Task', cancelled.body.result)
    assert.equal(cancelled.body.result.status.state, 'TASK_STATE_CANCELED')

    const stream = await subscription
    assert.ok(stream.closedByServer, 'the subscription ends at the terminal state')
    const responses = stream.events.map((e) => JSON.parse(e.data))
    assert.equal(responses[0].task.id, taskId)
    assert.equal(responses[0].task.history, undefined, 'a Clawpedia task has no A2A message turns')
    assert.equal(responses.at(-1).statusUpdate.status.state, 'TASK_STATE_CANCELED')

    const read = await http(`${base}/tasks/${taskId}`)
    assert.equal(read.body.status, 'CANCELLED')
  })

  it('Clawpedia INPUT_REQUIRED answered by an A2A follow-up; A2A output read over Clawpedia', async () => {
    const base = server.base('report-builder')
    const created = await http(`${base}/tasks`, { body: { input: { subject: 'whales' } } })
    const taskId: string = created.body.task_id
    const waiting = await readSse(`${base}/tasks/${taskId}/stream`, {
      stopWhen: (e) => e.event === 'status' && JSON.parse(e.data).status === 'INPUT_REQUIRED',
    })
    assert.ok(waiting.events.length > 0)

    const seen = await rpc(base, 'GetTask', { id: taskId })
    assert.equal(seen.body.result.status.state, 'TASK_STATE_INPUT_REQUIRED')
    assert.match(seen.body.result.status.message.parts[0].text, /whales/)

    const answered = await rpc(base, 'SendMessage', {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        taskId,
        parts: [{ data: { sections: ['Songs', 'Migration'] } }],
      },
    })
    const task = answered.body.result.task
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
    const output = task.artifacts.find((a: { name: string }) => a.name === 'output').parts[0].data

    const read = await http(`${base}/tasks/${taskId}`)
    assert.equal(read.body.status, 'COMPLETED')
    assert.deepEqual(read.body.output, output)
    const artifacts = await http(`${base}/tasks/${taskId}/artifacts`)
    const report = task.artifacts.find((a: { name: string }) => a.name === 'report')
    // A small file: A2A sends its bytes inline, Clawpedia links them; the same bytes either way.
    const linked = await (await fetch(artifacts.body.artifacts[0].content)).text()
    assert.equal(
      Buffer.from(report.parts[0].raw, 'base64').toString(),
      linked,
      'both dialects carry the same content',
    )
  })

  it('an A2A task is listed by A2A and readable by Clawpedia with the mapped state', async () => {
    const base = server.base('echo')
    const sent = await rpc(base, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { fail: true } }] },
    })
    const id = sent.body.result.task.id
    assert.equal(sent.body.result.task.status.state, 'TASK_STATE_FAILED')
    const read = await http(`${base}/tasks/${id}`)
    assert.equal(read.body.status, 'FAILED')
    assert.equal(read.body.error.code, 'ECHO_FAILED')
  })
})
