/**
 * Traces with an in-memory exporter: the inbound request spans of each dialect, the W3C trace
 * context they continue, and a chain of two agents through our client as one trace.
 */
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { defineAgent } from '../../src/agent/define.ts'
import { connect } from '../../src/client.ts'
import { instantAgent } from '../helpers/agents.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
// The global context manager and W3C propagator, as the SDK sets them when tracing is on.
provider.register()

let downstream = ''
const relayAgent = defineAgent({
  id: '5d1c3b7e-2a4f-4c6d-8e9f-0a1b2c3d4e5f',
  slug: 'relay',
  name: 'Relay Agent',
  description: 'Forwards its input to the instant agent through the client, for tests.',
  inputSchema: { type: 'object' },
  handler: async (input) => {
    const agent = await connect(downstream, { prefer: ['jsonrpc'], cache: false })
    const task = await (await agent.send(input as never)).wait()
    return { relayed: task.state }
  },
})

/** Runs until cancelled: its task stays open for a stream to follow. */
const holdingAgent = defineAgent({
  id: '7e2d4c6a-1b3f-4a5e-9c8d-2f4e6a8b0c1d',
  slug: 'holding',
  name: 'Holding Agent',
  description: 'Works until it is cancelled, for tests.',
  inputSchema: { type: 'object' },
  handler: (_input, ctx) =>
    new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
})

let server: TestServer
before(async () => {
  server = await startServer({
    agents: [instantAgent, relayAgent, holdingAgent],
    tracing: { tracerProvider: provider },
    limits: { requestsPerMinute: 60, burst: 40 },
  })
  downstream = `${server.url}/agents/instant`
})
after(async () => {
  await server.close()
  await provider.shutdown()
})
beforeEach(() => exporter.reset())

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'

const spansNamed = (name: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.name === name)

/** The server span ends on the response's end, just after the client has the answer: wait for it. */
const waitForSpan = async (name: string, count = 1): Promise<ReadableSpan[]> => {
  for (;;) {
    const found = spansNamed(name)
    if (found.length >= count) return found
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('inbound request spans', () => {
  it('a Clawpedia create continues the caller traceparent, with agent, task, state and caller', async () => {
    const created = await request(`${server.url}/agents/instant/tasks`, {
      method: 'POST',
      body: { input: { a: 1 } },
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'vendor=x' },
    })
    assert.equal(created.status, 202, JSON.stringify(created.body))
    const [span] = await waitForSpan('clawpedia.create')
    assert.ok(span)
    assert.equal(span.spanContext().traceId, TRACE_ID)
    assert.equal(span.parentSpanContext?.spanId, PARENT_ID)
    assert.equal(span.spanContext().traceState?.get('vendor'), 'x')
    const a = span.attributes
    assert.equal(a['switchboard.dialect'], 'clawpedia')
    assert.equal(a['switchboard.operation'], 'create')
    assert.equal(a['switchboard.agent'], 'instant')
    assert.equal(a['switchboard.binding'], 'HTTP')
    assert.equal(a['switchboard.task.id'], created.body.task_id)
    assert.equal(a['switchboard.task.state'], 'SUBMITTED')
    assert.equal(a['switchboard.caller.tenant'], 'default')
    assert.equal(typeof a['switchboard.caller.principal'], 'string')
    assert.equal(a['http.response.status_code'], 202)
    assert.deepEqual(
      span.events.map((e) => [e.name, e.attributes?.['switchboard.task.state']]),
      [['task.status', 'SUBMITTED']],
      'the state change the request made is an event of its span',
    )
  })

  it('a Clawpedia read of an unknown task carries the route task id and the error code', async () => {
    const missing = await request(`${server.url}/agents/instant/tasks/00000000-0000-4000-8000-000000000000`)
    assert.equal(missing.status, 404)
    const [span] = await waitForSpan('clawpedia.get')
    assert.equal(span!.attributes['switchboard.task.id'], '00000000-0000-4000-8000-000000000000')
    assert.equal(typeof span!.attributes['switchboard.error.code'], 'string')
    assert.equal(span!.parentSpanContext, undefined, 'no traceparent: a root span')
  })

  it('an A2A call through our client: test span → client span → a2a.SendMessage', async () => {
    const tracer = trace.getTracer('test')
    const root = tracer.startSpan('test-root')
    await context.with(trace.setSpan(context.active(), root), async () => {
      const agent = await connect(`${server.url}/agents/instant`, { prefer: ['jsonrpc'], cache: false })
      await (await agent.send({ b: 2 } as never)).wait()
    })
    root.end()
    const [served] = await waitForSpan('a2a.SendMessage')
    assert.ok(served)
    assert.equal(served.spanContext().traceId, root.spanContext().traceId)
    const client = exporter
      .getFinishedSpans()
      .find((s) => s.spanContext().spanId === served.parentSpanContext?.spanId)
    assert.ok(client, 'the server span is the child of a client span')
    assert.equal(client.name, 'client POST')
    assert.equal(client.parentSpanContext?.spanId, root.spanContext().spanId)
    assert.equal(served.attributes['switchboard.binding'], 'JSONRPC')
    assert.equal(served.attributes['switchboard.protocol.version'], '1.0')
    assert.equal(typeof served.attributes['switchboard.task.id'], 'string')
  })
})

describe('the gRPC binding', () => {
  it('a SendMessage through our gRPC transport continues the caller trace, with agent and binding', async () => {
    const tracer = trace.getTracer('test')
    const root = tracer.startSpan('test-root')
    await context.with(trace.setSpan(context.active(), root), async () => {
      const agent = await connect(`${server.url}/agents/instant`, { prefer: ['grpc'], cache: false })
      assert.equal(agent.interface.kind, 'grpc')
      await (await agent.send({ d: 4 } as never)).wait()
    })
    root.end()
    const [served] = await waitForSpan('a2a.SendMessage')
    assert.ok(served)
    assert.equal(served.spanContext().traceId, root.spanContext().traceId)
    assert.equal(served.parentSpanContext?.spanId, root.spanContext().spanId)
    assert.equal(served.attributes['switchboard.binding'], 'GRPC')
    assert.equal(served.attributes['switchboard.agent'], 'instant')
  })
})

describe('a chain of two agents', () => {
  it('relay → instant through the client is one trace', async () => {
    const created = await request(`${server.url}/agents/relay/tasks`, {
      method: 'POST',
      body: { input: { c: 3 } },
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    })
    assert.equal(created.status, 202)
    const [downstreamSpan] = await waitForSpan('a2a.SendMessage')
    assert.equal(downstreamSpan!.attributes['switchboard.agent'], 'instant')
    assert.equal(downstreamSpan!.spanContext().traceId, TRACE_ID, 'the downstream agent continues the trace')
    const runs = await waitForSpan('handler.run', 2)
    const relayRun = runs.find((s) => s.attributes['switchboard.agent'] === 'relay')
    assert.ok(relayRun)
    assert.equal(relayRun.spanContext().traceId, TRACE_ID)
    assert.equal(relayRun.attributes['switchboard.task.id'], created.body.task_id)
    const upstream = spansNamed('clawpedia.create')[0]!
    assert.equal(
      relayRun.parentSpanContext?.spanId,
      upstream.spanContext().spanId,
      'the run is the request child',
    )
    // The downstream request's parent is a client span inside the relay handler's run.
    const call = exporter
      .getFinishedSpans()
      .find((s) => s.spanContext().spanId === downstreamSpan!.parentSpanContext?.spanId)
    assert.equal(call?.name, 'client POST')
    const instantRun = runs.find((s) => s.attributes['switchboard.agent'] === 'instant')
    assert.equal(instantRun?.spanContext().traceId, TRACE_ID)
  })
})

describe('span ends', () => {
  it('a stream the client stops reading ends its span, marked CLIENT_ABORTED', async () => {
    const agent = await connect(`${server.url}/agents/holding`, { prefer: ['jsonrpc'], cache: false })
    const task = await agent.send({} as never)
    for await (const update of task.events()) if (update.type === 'status') break
    const [span] = await waitForSpan('a2a.SubscribeToTask')
    assert.equal(span!.attributes['switchboard.error.code'], 'CLIENT_ABORTED')
    assert.equal(span!.attributes['switchboard.task.id'], task.id)
    await task.cancel()
  })

  it('a route of no agent (/metrics, /healthz) names no agent', async () => {
    assert.equal((await request(`${server.url}/healthz`)).status, 200)
    const [span] = await waitForSpan('switchboard.GET /healthz')
    assert.equal(span!.attributes['switchboard.dialect'], 'switchboard')
    assert.equal(span!.attributes['switchboard.agent'], undefined)
  })
})

// Last: it spends the caller's rate-limit bucket.
describe('policy decisions', () => {
  it('a rate-limited request is traced with the decision and the refusal reason', async () => {
    let status = 0
    while (status !== 429) status = (await request(`${server.url}/agents/instant/tasks/${PARENT_ID}`)).status
    const refused = exporter.getFinishedSpans().find((s) => s.attributes['http.response.status_code'] === 429)
    assert.ok(refused)
    assert.equal(refused.name, 'clawpedia.get')
    assert.equal(refused.attributes['switchboard.policy.decision'], 'rate-limited')
    assert.match(String(refused.attributes['switchboard.policy.reason']), /./)
    assert.notEqual(refused.attributes['switchboard.policy.reason'], 'HTTP 429', 'the answer says why')
  })
})
