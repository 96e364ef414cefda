import {
  type Metadata,
  status,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js'
import { context, trace } from '@opentelemetry/api'
import type { CallerIdentity } from '../model/caller.ts'
import {
  ATTR,
  extractContext,
  recordCaller,
  recordFailure,
  recordPolicy,
  type Span,
  SpanKind,
  type Tracer,
} from './tracing.ts'

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

/** The policy a refusal's gRPC status stands for: the codes of HTTP's 401, 403 and 429. */
const POLICY_REFUSALS: Readonly<Record<number, string>> = {
  [status.UNAUTHENTICATED]: 'authentication-refused',
  [status.PERMISSION_DENIED]: 'authorization-refused',
  [status.RESOURCE_EXHAUSTED]: 'rate-limited',
}

const finish = (span: Span, error: { code?: unknown; details?: unknown } | null | undefined): void => {
  if (error) {
    const details = typeof error.details === 'string' ? error.details : undefined
    recordFailure(span, String(error.code), details)
    const refusal = typeof error.code === 'number' ? POLICY_REFUSALS[error.code] : undefined
    if (refusal) recordPolicy(span, refusal, details ?? `gRPC status ${error.code}`)
  }
  span.end()
}

/**
 * The binding's `identify`, naming the caller it establishes on the call's span. Authentication
 * runs inside the call's handler, where the span traceGrpcImplementation started is active.
 */
export const identifyTraced =
  <Peer>(identify: (peer: Peer) => Promise<CallerIdentity>) =>
  async (peer: Peer): Promise<CallerIdentity> => {
    const caller = await identify(peer)
    const span = trace.getActiveSpan()
    if (span) recordCaller(span, caller)
    return caller
  }
