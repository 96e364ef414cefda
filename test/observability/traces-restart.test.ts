/**
 * An A2A streaming task that asks for input, with the server closed and started again on the same
 * SQLite file between the question and the answer: the answer's run links to the trace that
 * created the task, and the task span, built by the second process, is in that trace.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { rpc, V } from '../a2a/helpers.ts'
import { replierAgent } from '../helpers/reply-agents.ts'
import { startServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'
import { inMemoryTracing, statusEvents, waitForSpans } from './spans.ts'

const { exporter, provider } = inMemoryTracing()
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-trace-restart-'))
after(async () => {
  await provider.shutdown()
  rmSync(dataDir, { recursive: true, force: true })
})

const FIRST = '0af7651916cd43dd8448eb211c80319c'
const SECOND = '4bf92f3577b34da6a3ce929d0e0e4736'
const traceparent = (traceId: string) => `00-${traceId}-b7ad6b7169203331-01`

describe('a task resumed after a restart', () => {
  it('the answer run links to the original trace; one task span there, with every state change', async () => {
    const options = { agents: [replierAgent], dataDir, tracing: { tracerProvider: provider } }
    const first = await startServer(options)
    let taskId = ''
    try {
      const asked = await readSse(`${first.url}/agents/replier/a2a/jsonrpc`, {
        method: 'POST',
        headers: { ...V, 'content-type': 'application/json', traceparent: traceparent(FIRST) },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { ask: true } }] } },
        }),
        stopWhen: (event) => event.data.includes('TASK_STATE_INPUT_REQUIRED'),
      })
      assert.equal(asked.status, 200)
      const last = JSON.parse(asked.events.at(-1)!.data).result
      taskId = last.statusUpdate?.taskId ?? last.task?.id
      assert.ok(taskId, JSON.stringify(last))
    } finally {
      await first.close()
    }

    const second = await startServer(options)
    try {
      const answered = await rpc(
        `${second.url}/agents/replier`,
        'SendMessage',
        { message: { messageId: 'm-2', taskId, role: 'ROLE_USER', parts: [{ data: { name: 'Ada' } }] } },
        { ...V, traceparent: traceparent(SECOND) },
      )
      assert.equal(answered.status, 200, JSON.stringify(answered.body))
      const ofTask = (s: { attributes: Record<string, unknown> }) =>
        s.attributes['switchboard.task.id'] === taskId
      const [task] = await waitForSpans(exporter, (s) => s.name === 'task' && ofTask(s))
      const runs = await waitForSpans(exporter, (s) => s.name === 'handler.run' && ofTask(s), 2)
      const [streamed] = await waitForSpans(
        exporter,
        (s) => s.name === 'a2a.SendStreamingMessage' && s.spanContext().traceId === FIRST,
      )

      const resumed = runs.find((r) => r.attributes['switchboard.run.resumed'] === true)
      assert.ok(resumed)
      assert.equal(resumed.spanContext().traceId, SECOND, "the answer's run is in the answer's trace")
      assert.deepEqual(
        resumed.links.map((l) => [l.context.traceId, l.context.spanId]),
        [[FIRST, streamed!.spanContext().spanId]],
        'linked to the request that created the task',
      )

      assert.equal(exporter.getFinishedSpans().filter((s) => s.name === 'task' && ofTask(s)).length, 1)
      assert.equal(task!.spanContext().traceId, FIRST)
      assert.equal(task!.parentSpanContext?.spanId, streamed!.spanContext().spanId)
      assert.deepEqual(statusEvents(task!), [
        'SUBMITTED',
        'WORKING',
        'INPUT_REQUIRED',
        'WORKING',
        'COMPLETED',
      ])
      assert.equal(
        task!.events.find((e) => e.attributes?.['switchboard.task.state'] === 'INPUT_REQUIRED')?.attributes?.[
          'switchboard.task.status.message'
        ],
        'Your name?',
      )
      assert.equal(task!.attributes['switchboard.task.state'], 'COMPLETED')
      // What finished the task (the answer's run) is in another trace: linked.
      assert.deepEqual(
        task!.links.map((l) => l.context.traceId),
        [SECOND],
      )
    } finally {
      await second.close()
    }
  })
})
