/**
 * Trace ids in logs: with tracing on, a line written inside a traced request or run carries its
 * `trace_id` and `span_id`, the access line its request's; with tracing off, no line has them and
 * the store makes no commit span. Credentials stay censored either way.
 */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, beforeEach, describe, it } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { pino } from 'pino'
import { traceLogFields } from '../../src/observability/tracing.ts'
import { createServerLogger, serverLoggerOf } from '../../src/server/redaction.ts'
import { instantAgent } from '../helpers/agents.ts'
import { eventually, request, startServer } from '../helpers/server.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()
after(() => provider.shutdown())
beforeEach(() => exporter.reset())

type Line = Record<string, unknown>

/** A server logger writing into an array, as the server's default one would write to stdout. */
const capture = (traceIds: boolean) => {
  const lines: Line[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Line)
      done()
    },
  })
  return { lines, logger: createServerLogger({ level: 'info', authenticators: [], destination, traceIds }) }
}

const inSpan = <T>(work: () => T): { result: T; traceId: string; spanId: string } => {
  const span = provider.getTracer('test').startSpan('work')
  try {
    const result = context.with(trace.setSpan(context.active(), span), work)
    return { result, ...span.spanContext() }
  } finally {
    span.end()
  }
}

const lineWith = (lines: Line[], msg: string, field?: [string, unknown]): Promise<Line> =>
  eventually(
    async () => lines.find((line) => line.msg === msg && (!field || line[field[0]] === field[1])),
    5_000,
    `the "${msg}" line`,
  )

describe('the server logger', () => {
  it('with trace ids: a line inside a span carries its ids, a line outside none; credentials censored', () => {
    const { lines, logger } = capture(true)
    const { traceId, spanId } = inSpan(() =>
      logger.info({ headers: { authorization: 'Bearer secret-4f1d2a' } }, 'inside'),
    )
    logger.info('outside')
    assert.equal(lines[0]!.trace_id, traceId)
    assert.equal(lines[0]!.span_id, spanId)
    assert.ok(!JSON.stringify(lines[0]).includes('secret-4f1d2a'))
    assert.equal('trace_id' in lines[1]!, false)
    assert.equal('span_id' in lines[1]!, false)
  })

  it('the server installs the trace ids hook on its default logger only when it traces', () => {
    const mixinOf = (logger: object) => (logger as Record<symbol, unknown>)[pino.symbols.mixinSym]
    assert.equal(mixinOf(serverLoggerOf({ tracing: { tracerProvider: provider } })), traceLogFields)
    assert.equal(mixinOf(serverLoggerOf({})), undefined)
  })

  it('without (tracing off): no trace_id even inside a span', () => {
    const { lines, logger } = capture(false)
    inSpan(() => logger.info('inside'))
    assert.equal('trace_id' in lines[0]!, false)
  })
})

describe('a traced server', () => {
  it("the request's lines carry its trace: the task created line and the access line, with agent and task", async () => {
    const { lines, logger } = capture(true)
    const server = await startServer({
      agents: [instantAgent],
      logger,
      tracing: { tracerProvider: provider },
    })
    try {
      const created = await request(`${server.url}/agents/instant/tasks`, { body: { input: {} } })
      assert.equal(created.status, 202)
      const taskId = created.body.task_id as string
      const span = await eventually(
        async () => exporter.getFinishedSpans().find((s) => s.name === 'clawpedia.create'),
        5_000,
        'the request span',
      )
      const { traceId } = span.spanContext()
      const createdLine = await lineWith(lines, 'task created', ['taskId', taskId])
      assert.equal(createdLine.trace_id, traceId)
      assert.equal(createdLine.agent, 'instant')
      const access = await lineWith(lines, 'request', ['method', 'POST'])
      assert.equal(access.trace_id, traceId)
      assert.equal(access.agent, 'instant')

      await request(`${server.url}/agents/instant/tasks/${taskId}`)
      const read = await lineWith(lines, 'request', ['method', 'GET'])
      assert.equal(read.taskId, taskId)
      assert.equal(read.agent, 'instant')
      assert.equal(typeof read.trace_id, 'string')
      assert.notEqual(read.trace_id, traceId, 'another request, another trace')
    } finally {
      await server.close()
    }
  })
})

describe('a server without tracing', () => {
  it('no trace_id on its lines, and no store.commit span even with a provider registered', async () => {
    const { lines, logger } = capture(false)
    const server = await startServer({ agents: [instantAgent], logger })
    try {
      const created = await request(`${server.url}/agents/instant/tasks`, { body: { input: {} } })
      assert.equal(created.status, 202)
      const access = await lineWith(lines, 'request', ['method', 'POST'])
      assert.equal(access.agent, 'instant')
      assert.ok(lines.every((line) => !('trace_id' in line)))
      assert.equal(exporter.getFinishedSpans().filter((s) => s.name === 'store.commit').length, 0)
    } finally {
      await server.close()
    }
  })
})
