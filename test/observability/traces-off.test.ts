/**
 * Tracing off (the default): no SDK is loaded, the API calls are no-ops, nothing is propagated.
 * This file registers no provider, so the global API is the one a server without tracing sees.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { send } from '../../src/client/http.ts'
import { isTerminal } from '../../src/model/states.ts'
import { DEFAULT_SCOPE } from '../../src/model/task.ts'
import { SwitchboardMetrics } from '../../src/observability/metrics.ts'
import { tracingRequested } from '../../src/observability/otel-sdk.ts'
import { type Tracer, tracerOf } from '../../src/observability/tracing.ts'
import { OpenTaskTally, observedStore } from '../../src/server/metrics-store.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { sourceFiles } from '../architecture/layers.ts'
import { instantAgent } from '../helpers/agents.ts'
import { request, startServer } from '../helpers/server.ts'
import { completed, create, status } from '../store/contract/fixtures.ts'

const SRC = join(import.meta.dirname, '../../src')
const SDK_IMPORT = /(?:from\s*|import\s*\(\s*)['"](@opentelemetry\/(?!api['"])[^'"]+)['"]/g

describe('tracing off', () => {
  it('only otel-sdk.ts names an OpenTelemetry package beyond the API, and only the CLI loads it, dynamically', () => {
    const importers: string[] = []
    const loaders: string[] = []
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(join(SRC, file), 'utf8')
      if ([...text.matchAll(SDK_IMPORT)].length > 0) importers.push(file)
      if (/otel-sdk\.ts['"]/.test(text)) loaders.push(file)
      assert.doesNotMatch(text, /^import[^\n]*otel-sdk\.ts['"]/m, `${file} loads the SDK statically`)
    }
    assert.deepEqual(importers, ['observability/otel-sdk.ts'])
    assert.deepEqual(loaders, ['cli/serve-flags/otel.ts'])
  })

  it('the API is a no-op: spans do not record, and the client adds no traceparent', async () => {
    const span = trace.getTracer('switchboard').startSpan('x')
    assert.equal(span.isRecording(), false)
    span.end()
    let seen: IncomingHttpHeaders | undefined
    const receiver = createServer((req, res) => {
      seen = req.headers
      res.end('{}')
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`
      const { response, exchange } = await context.with(context.active(), () =>
        send({ timeoutMs: 5_000 }, url, {}),
      )
      await response.text()
      exchange.end()
    } finally {
      receiver.close()
    }
    assert.ok(seen)
    assert.equal(seen.traceparent, undefined)
    assert.equal(seen.tracestate, undefined)
  })
})

describe('the task trace, off', () => {
  it('a task created by a traced caller stores no trace context', async () => {
    const server = await startServer({ agents: [instantAgent] })
    try {
      const created = await request(`${server.url}/agents/instant/tasks`, {
        method: 'POST',
        body: { input: {} },
        headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      })
      assert.equal(created.status, 202)
      const task = await server.switchboard.engine.waitFor(DEFAULT_SCOPE, created.body.task_id, isTerminal)
      assert.equal(task.state, 'COMPLETED')
      const stored = await server.switchboard.store.getTask(DEFAULT_SCOPE, task.id)
      assert.ok(stored)
      assert.equal('traceContext' in stored, false)
    } finally {
      await server.close()
    }
  })

  it('a terminal write records no task span and reads no events for one', async () => {
    const inner = createMemoryStore()
    await inner.init()
    let reads = 0
    const readEvents = inner.readEvents.bind(inner)
    inner.readEvents = (...args) => {
      reads += 1
      return readEvents(...args)
    }
    const tally = new OpenTaskTally({ trackWaiting: true })
    const logger = { info: () => {}, warn: () => {}, error: () => {} }
    const metrics = new SwitchboardMetrics({
      store: inner,
      openTasks: () => tally.counts(),
      openStreams: () => new Map(),
    })
    const observe = (tracer: Tracer) => observedStore(inner, { metrics, tally, logger, tracer })
    const finish = async (store: Store) => {
      const { task } = await create(store)
      const appended = await store.append({ taskId: task.id, events: [status('WORKING'), completed] })
      assert.equal(appended.task.state, 'COMPLETED')
    }
    try {
      // The span is decided on before the append's caller resumes: a recording one reads at once.
      await finish(observe(tracerOf()))
      assert.equal(reads, 0)
      await finish(observe(tracerOf(new BasicTracerProvider())))
      assert.equal(reads, 1, 'a recording tracer reads the events')
    } finally {
      await inner.close()
    }
  })
})

describe('when tracing is asked for', () => {
  it('follows the standard OTEL_* variables and the flag; OTEL_SDK_DISABLED wins', () => {
    assert.equal(tracingRequested({}), false)
    assert.equal(tracingRequested({}, true), true)
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), true)
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' }), true)
    assert.equal(
      tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      false,
    )
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true)
    assert.equal(
      tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
      true,
    )
    assert.equal(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, true), false)
  })
})
