import assert from 'node:assert/strict'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'

/**
 * A provider exporting to memory, registered globally: the context manager and W3C propagator
 * the SDK sets when tracing is on, so spans below the request (runs, the task span) are seen too.
 */
export const inMemoryTracing = (): { exporter: InMemorySpanExporter; provider: NodeTracerProvider } => {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  provider.register()
  return { exporter, provider }
}

/**
 * The finished spans that `match`, once there are `count` of them. Spans end after the answer the
 * test awaited (a server span on the response's end, the task span after its terminal commit),
 * and no event says so: polled, with a bound.
 */
export const waitForSpans = async (
  exporter: InMemorySpanExporter,
  match: (span: ReadableSpan) => boolean,
  count = 1,
): Promise<ReadableSpan[]> => {
  const deadline = Date.now() + 5_000
  for (;;) {
    const found = exporter.getFinishedSpans().filter(match)
    if (found.length >= count) return found
    if (Date.now() > deadline)
      assert.fail(
        `spans seen: ${exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .join(', ')}`,
      )
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The states of a span's `task.status` events, in order. */
export const statusEvents = (span: ReadableSpan): unknown[] =>
  span.events.filter((e) => e.name === 'task.status').map((e) => e.attributes?.['switchboard.task.state'])
