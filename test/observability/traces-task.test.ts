/**
 * The task span: a Clawpedia task's whole life in the trace of the request that created it, and
 * the trace context stored with the task, which never goes out on any wire.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { connect } from '../../src/client.ts'
import { DEFAULT_SCOPE } from '../../src/model/task.ts'
import { echoAgent, rest, rpc, startReceiver } from '../a2a/helpers.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { inMemoryTracing, statusEvents, waitForSpans } from './spans.ts'

const { exporter, provider } = inMemoryTracing()

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  receiver = await startReceiver()
  server = await startServer({
    agents: [echoAgent],
    tracing: { tracerProvider: provider },
    notifications: { echo: { endpointUrl: receiver.url } },
  })
})
after(async () => {
  await server.close()
  await receiver.close()
  await provider.shutdown()
})

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'

/** A Clawpedia task of the echo agent (one artifact of each kind), created in TRACE_ID; its task span. */
const echoTask = async (): Promise<{ taskId: string; created: ReadableSpan; task: ReadableSpan }> => {
  const answer = await request(`${server.url}/agents/echo/tasks`, {
    method: 'POST',
    body: { input: { artifacts: true } },
    headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'vendor=x' },
  })
  assert.equal(answer.status, 202, JSON.stringify(answer.body))
  const taskId: string = answer.body.task_id
  const ofTask = (s: ReadableSpan) => s.attributes['switchboard.task.id'] === taskId
  const [created] = await waitForSpans(exporter, (s) => s.name === 'clawpedia.create' && ofTask(s))
  const [task] = await waitForSpans(exporter, (s) => s.name === 'task' && ofTask(s))
  return { taskId, created: created!, task: task! }
}

describe('the task span', () => {
  it("a Clawpedia task: the creating request's child, its state changes in order, its artifacts", async () => {
    const { taskId, created, task } = await echoTask()
    const stored = await server.switchboard.store.getTask(DEFAULT_SCOPE, taskId)
    assert.ok(stored)
    assert.equal(stored.state, 'COMPLETED')
    assert.equal(task.spanContext().traceId, TRACE_ID)
    assert.equal(task.parentSpanContext?.spanId, created.spanContext().spanId)
    assert.deepEqual(statusEvents(task), ['SUBMITTED', 'WORKING', 'COMPLETED'])
    const times = task.events.map((e) => e.time[0] * 1e9 + e.time[1])
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'each event at its own time, in order',
    )
    assert.equal(task.startTime[0] * 1000 + Math.floor(task.startTime[1] / 1e6), Date.parse(stored.createdAt))
    assert.equal(task.endTime[0] * 1000 + Math.floor(task.endTime[1] / 1e6), Date.parse(stored.statusAt))
    const a = task.attributes
    assert.equal(a['switchboard.task.id'], taskId)
    assert.equal(a['switchboard.context.id'], stored.contextId)
    assert.equal(a['switchboard.agent'], 'echo')
    assert.equal(a['switchboard.task.state'], 'COMPLETED')
    assert.equal(a['switchboard.caller.tenant'], 'default')
    assert.equal(a['switchboard.caller.principal'], 'default')
    assert.equal(stored.artifacts.length, 5)
    assert.deepEqual(
      a['switchboard.artifact.ids'],
      stored.artifacts.map((artifact) => artifact.id),
    )
  })

  it("a FAILED task's span carries the error code", async () => {
    const answer = await request(`${server.url}/agents/echo/tasks`, {
      method: 'POST',
      body: { input: { fail: true } },
    })
    assert.equal(answer.status, 202)
    const [task] = await waitForSpans(
      exporter,
      (s) => s.name === 'task' && s.attributes['switchboard.task.id'] === answer.body.task_id,
    )
    assert.equal(task!.attributes['switchboard.task.state'], 'FAILED')
    assert.equal(task!.attributes['switchboard.error.code'], 'ECHO_FAILED')
    assert.deepEqual(statusEvents(task!), ['SUBMITTED', 'WORKING', 'FAILED'])
    const [created] = await waitForSpans(
      exporter,
      (s) => s.name === 'clawpedia.create' && s.attributes['switchboard.task.id'] === answer.body.task_id,
    )
    // No traceparent sent: the request's span starts the trace, and the task's is its child.
    assert.equal(created!.parentSpanContext, undefined)
    assert.equal(task!.parentSpanContext?.spanId, created!.spanContext().spanId)
  })
})

describe('the stored trace context', () => {
  it("is the creating request's, and goes out on no wire (A2A 1.0 and 0.3, gRPC, Clawpedia, push bodies)", async () => {
    const { taskId, created } = await echoTask()
    const stored = await server.switchboard.store.getTask(DEFAULT_SCOPE, taskId)
    assert.deepEqual(stored?.traceContext, {
      traceparent: `00-${TRACE_ID}-${created.spanContext().spanId}-01`,
      tracestate: 'vendor=x',
    })
    const base = `${server.url}/agents/echo`
    const answers = [
      await request(`${base}/tasks/${taskId}`),
      await request(`${base}/tasks/${taskId}/artifacts`),
      await rpc(base, 'GetTask', { id: taskId }),
      await rpc(base, 'ListTasks', {}),
      await rest(base, `/tasks/${taskId}`),
      await rpc(base, 'tasks/get', { id: taskId }, {}),
    ]
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const grpc = await connect(base, { prefer: ['grpc'], cache: false })
    assert.equal(grpc.interface.kind, 'grpc')
    // The agent's configured webhook: a Clawpedia push body for each state change, up to COMPLETED.
    const pushed = await eventually(async () => {
      const bodies = receiver.received.map((r) => r.body).filter((body) => body.includes(taskId))
      return bodies.some((body) => body.includes('COMPLETED')) ? bodies : undefined
    })
    const wire = [
      ...answers.map((a) => JSON.stringify(a.body)),
      JSON.stringify((await grpc.task(taskId)).task),
      ...pushed,
    ]
    for (const text of wire) {
      assert.ok(text.includes(taskId), text)
      assert.ok(!text.includes(TRACE_ID), `the trace id went out: ${text}`)
      assert.doesNotMatch(text, /traceContext|traceparent/i)
    }
  })
})
