import type { Metadata, UntypedHandleCall, UntypedServiceImplementation } from '@grpc/grpc-js'
import { context, trace } from '@opentelemetry/api'
import { ATTR, extractContext, recordFailure, type Span, SpanKind, type Tracer } from './tracing.ts'

interface TracedCall {
  metadata: Metadata
  request?: { tenant?: unknown; id?: unknown; taskId?: unknown }
  once?(event: string, listener: (...args: unknown[]) => void): unknown
}

type Callback = (error: { code?: unknown; details?: unknown } | null, ...rest: unknown[]) => void

/**
 * One SERVER span per call of the A2A gRPC binding, as the HTTP bindings have per request: named
 * `a2a.<Method>`, a child of the caller's `traceparent` metadata, and the active context of the
 * call's handler. A unary call's span ends with its callback, a streaming call's when the stream
 * finishes, is cancelled or fails.
 */
export const traceGrpcImplementation = (
  implementation: UntypedServiceImplementation,
  tracer: Tracer,
  defaultAgent: string,
): UntypedServiceImplementation =>
  Object.fromEntries(
    Object.entries(implementation).map(([name, handler]) => [
      name,
      traced(name, handler, tracer, defaultAgent),
    ]),
  )

const traced = (
  name: string,
  handler: UntypedHandleCall,
  tracer: Tracer,
  defaultAgent: string,
): UntypedHandleCall => {
  const operation = name[0]!.toUpperCase() + name.slice(1)
  const run = handler as (call: TracedCall, callback?: Callback) => void
  return ((call: TracedCall, callback?: Callback) => {
    const parent = extractContext(call.metadata.getMap())
    const tenant = call.request?.tenant
    const taskId = call.request?.taskId ?? call.request?.id
    const span = tracer.startSpan(
      `a2a.${operation}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR.dialect]: 'a2a',
          [ATTR.operation]: operation,
          [ATTR.binding]: 'GRPC',
          [ATTR.protocolVersion]: '1.0',
          [ATTR.agent]: typeof tenant === 'string' && tenant !== '' ? tenant : defaultAgent,
          ...(typeof taskId === 'string' && taskId !== '' && { [ATTR.taskId]: taskId }),
        },
      },
      parent,
    )
    const active = trace.setSpan(parent, span)
    if (callback) {
      context.with(active, () =>
        run(call, (error, ...rest) => {
          finish(span, error)
          callback(error, ...rest)
        }),
      )
      return
    }
    let ended = false
    const end = (error?: unknown) => {
      if (ended) return
      ended = true
      finish(span, error as { code?: unknown } | undefined)
    }
    call.once?.('finish', () => end())
    call.once?.('cancelled', () => end({ code: 'CANCELLED' }))
    call.once?.('error', (error) => end(error))
    context.with(active, () => run(call))
  }) as UntypedHandleCall
}

const finish = (span: Span, error: { code?: unknown; details?: unknown } | null | undefined): void => {
  if (error)
    recordFailure(span, String(error.code), typeof error.details === 'string' ? error.details : undefined)
  span.end()
}
