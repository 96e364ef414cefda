import {
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api'

/** A batch mixing more writers than this links to the first ones only: a span's links are held in memory. */
export const MAX_COMMIT_LINKS = 16

/** One write of a commit batch: the store operation, and the span that was active when it was asked for. */
export interface BatchWrite {
  operation: string
  writer: SpanContext | undefined
}

/** The active span's context, when there is a real one (a no-op span's is not). */
export const activeWriter = (): SpanContext | undefined => {
  const found = trace.getSpan(context.active())?.spanContext()
  return found && trace.isSpanContextValid(found) ? found : undefined
}

const distinctWriters = (writes: readonly BatchWrite[]): SpanContext[] => {
  const seen = new Map<string, SpanContext>()
  for (const { writer } of writes) {
    if (writer && !seen.has(writer.spanId)) seen.set(writer.spanId, writer)
  }
  return [...seen.values()]
}

/**
 * The `store.commit` span of one transaction. A batch asked for by one span (always so on
 * PostgreSQL, where a transaction is one call) is that span's child. A group commit that mixes
 * several writers belongs to none of them: it is a root span that links to up to
 * MAX_COMMIT_LINKS of their spans, so each request's trace still leads to the commit it waited for.
 */
export const startCommitSpan = (
  tracer: Tracer,
  system: 'sqlite' | 'postgresql',
  writes: readonly BatchWrite[],
): Span => {
  const writers = distinctWriters(writes)
  const operations = [...new Set(writes.map((w) => w.operation))].sort().join(',')
  const parent = writers.length === 1 ? trace.setSpanContext(ROOT_CONTEXT, writers[0]!) : ROOT_CONTEXT
  const links: Link[] =
    writers.length > 1 ? writers.slice(0, MAX_COMMIT_LINKS).map((writer) => ({ context: writer })) : []
  return tracer.startSpan(
    'store.commit',
    {
      kind: SpanKind.INTERNAL,
      root: writers.length !== 1,
      links,
      attributes: {
        'db.system': system,
        'switchboard.store.batch.size': writes.length,
        'switchboard.store.operation': operations,
      },
    },
    parent,
  )
}

/** Ends a commit span whose transaction failed as a whole (every write of the batch with it). */
export const failCommitSpan = (span: Span, error: unknown): void => {
  const code = (error as { code?: unknown }).code
  span.setAttribute('switchboard.error.code', typeof code === 'string' ? code : 'INTERNAL')
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message })
}

/** Runs one transaction (`commit`) inside its commit span, ending the span when it settles. */
export const tracedCommit = async <T>(
  tracer: Tracer,
  system: 'sqlite' | 'postgresql',
  operation: string,
  commit: () => Promise<T>,
): Promise<T> => {
  const span = startCommitSpan(tracer, system, [{ operation, writer: activeWriter() }])
  try {
    return await commit()
  } catch (error) {
    failCommitSpan(span, error)
    throw error
  } finally {
    span.end()
  }
}
