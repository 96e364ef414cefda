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
import { send } from '../../src/client/http.ts'
import { tracingRequested } from '../../src/observability/otel-sdk.ts'
import { sourceFiles } from '../architecture/layers.ts'

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
