/**
 * An A2A task followed by stream that asks for input, answered later in another trace: the
 * requests' spans, and the handler runs (the first, and the run resumed by the answer).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { connect } from '../../src/client.ts'
import { replierAgent } from '../helpers/reply-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { inMemoryTracing, waitForSpans } from './spans.ts'

const { exporter, provider } = inMemoryTracing()

let server: TestServer
before(async () => {
  server = await startServer({ agents: [replierAgent], tracing: { tracerProvider: provider } })
})
after(async () => {
  await server.close()
  await provider.shutdown()
})

const FIRST = '0af7651916cd43dd8448eb211c80319c'
const SECOND = '4bf92f3577b34da6a3ce929d0e0e4736'

describe('INPUT_REQUIRED answered later', () => {
  it('the stream, the answer and both handler runs are traced with the task id', async () => {
    const agent = await connect(`${server.url}/agents/replier`, { prefer: ['jsonrpc'], cache: false })
    const inTrace = <T>(traceId: string, work: () => Promise<T>): Promise<T> =>
      context.with(
        trace.setSpanContext(context.active(), { traceId, spanId: 'b7ad6b7169203331', traceFlags: 1 }),
        work,
      )
    const handle = await inTrace(FIRST, () => agent.send({ ask: true } as never))
    const asked = await inTrace(FIRST, () => handle.wait({ via: 'stream' }))
    assert.equal(asked.state, 'INPUT_REQUIRED')
    const taskId = asked.id
    const done = await inTrace(SECOND, () => handle.provideInput({ name: 'Ada' } as never))
    assert.ok(done)
    const [streamed] = await waitForSpans(
      exporter,
      (s) => s.name.startsWith('a2a.') && s.spanContext().traceId === FIRST,
      1,
    )
    assert.equal(streamed!.spanContext().traceId, FIRST)
    assert.equal(streamed!.attributes['switchboard.binding'], 'JSONRPC')
    const [answered] = await waitForSpans(
      exporter,
      (s) => s.name === 'a2a.SendMessage' && s.spanContext().traceId === SECOND,
      1,
    )
    assert.equal(answered!.spanContext().traceId, SECOND)
    assert.equal(answered!.attributes['switchboard.task.id'], taskId)

    const runs = await waitForSpans(exporter, (s) => s.name === 'handler.run', 2)
    assert.deepEqual(
      runs.map((r) => r.attributes['switchboard.task.id']),
      [taskId, taskId],
    )
    // The first run belongs to the request that created the task; the resumed run to the answer's.
    assert.deepEqual(
      runs.map((r) => r.spanContext().traceId),
      [FIRST, SECOND],
    )
    // The resumed run links back to the trace that created the task; the first one needs no link.
    const [first, resumed] = runs
    assert.deepEqual(first!.links, [])
    assert.equal(first!.attributes['switchboard.run.resumed'], undefined)
    assert.equal(resumed!.attributes['switchboard.run.resumed'], true)
    assert.deepEqual(
      resumed!.links.map((l) => l.context.traceId),
      [FIRST],
    )
  })
})
