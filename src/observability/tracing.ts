import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api'
import type { CallerIdentity } from '../model/caller.ts'

/** The instrumentation scope every Switchboard span is created under. */
export const TRACER_NAME = 'switchboard'

/**
 * Span attribute keys. Switchboard's own facts live under `switchboard.*` and `a2a.*`; the caller
 * is named by principal and tenant only, never by a credential.
 */
export const ATTR = {
  agent: 'switchboard.agent',
  dialect: 'switchboard.dialect',
  operation: 'switchboard.operation',
  binding: 'switchboard.binding',
  protocolVersion: 'switchboard.protocol.version',
  taskId: 'switchboard.task.id',
  contextId: 'switchboard.context.id',
  state: 'switchboard.task.state',
  statusMessage: 'switchboard.task.status.message',
  artifactIds: 'switchboard.artifact.ids',
  principal: 'switchboard.caller.principal',
  tenant: 'switchboard.caller.tenant',
  errorCode: 'switchboard.error.code',
  policy: 'switchboard.policy.decision',
  policyReason: 'switchboard.policy.reason',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlFull: 'url.full',
  serverAddress: 'server.address',
} as const

/** What the server assembly is given to trace with; absent, tracing is off and nothing is hooked. */
export interface TracingOptions {
  /** The provider spans go to (an SDK's, or a test's with an in-memory exporter). */
  tracerProvider: TracerProvider
  /** Called when the server closes, after its last request: flushes and stops the exporter. */
  shutdown?: () => Promise<void>
}

/** The tracer of a provider, or of the global one (a no-op until an SDK registers). */
export const tracerOf = (provider?: TracerProvider): Tracer =>
  (provider ?? trace.getTracerProvider()).getTracer(TRACER_NAME)

/** A header carrier as W3C propagation reads it: lower-case names, first value of a list. */
const HEADER_GETTER = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key]
    if (Array.isArray(value)) return value.map(String)
    return value === undefined ? undefined : String(value)
  },
}

/** The trace context a caller sent (`traceparent`/`tracestate`), or the root context. */
export const extractContext = (headers: Record<string, unknown>): Context =>
  propagation.extract(ROOT_CONTEXT, headers, HEADER_GETTER)

/** The propagation headers (`traceparent`, `tracestate`) of a context: empty when nothing is traced. */
export const propagationHeaders = (from: Context = context.active()): Record<string, string> => {
  const carrier: Record<string, string> = {}
  propagation.inject(from, carrier)
  return carrier
}

/** Names the authenticated caller on a server span: principal and tenant, never a credential. */
export const recordCaller = (span: Span, caller: CallerIdentity): void => {
  span.setAttribute(ATTR.principal, caller.principal)
  span.setAttribute(ATTR.tenant, caller.tenant)
}

/** Records the policy that refused a call (`authentication-refused`, …) and its reason. */
export const recordPolicy = (span: Span, decision: string, reason: string): void => {
  span.setAttribute(ATTR.policy, decision)
  span.setAttribute(ATTR.policyReason, reason)
}

/**
 * The ids of the active span as log fields (pino's `mixin`): a line written while a request or a
 * run is traced carries its trace. A fresh object each time, since pino merges the line into it.
 */
export const traceLogFields = (): TraceLogFields => traceFieldsOf(context.active())

export interface TraceLogFields {
  trace_id?: string
  span_id?: string
}

/** The log fields of a context's span: none when it has no real span (tracing off, or outside one). */
export const traceFieldsOf = (active: Context): TraceLogFields => {
  const found = trace.getSpan(active)?.spanContext()
  if (!found || !trace.isSpanContextValid(found)) return {}
  return { trace_id: found.traceId, span_id: found.spanId }
}

/** Marks a span failed with a protocol error code (the span keeps running until ended). */
export const recordFailure = (span: Span, code: string, message?: string): void => {
  span.setAttribute(ATTR.errorCode, code)
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) })
}

/**
 * Runs `work` inside a span (a child of the active context) and ends it when `work` settles; a
 * thrown error marks the span failed with the error's `code` when it has one.
 */
export const inSpan = async <T>(
  tracer: Tracer,
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> =>
  tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    async (span) => {
      try {
        return await work(span)
      } catch (error) {
        const code = (error as { code?: unknown }).code
        recordFailure(span, typeof code === 'string' ? code : 'INTERNAL', (error as Error).message)
        throw error
      } finally {
        span.end()
      }
    },
  )

export type { Span, Tracer, TracerProvider }
export { SpanKind, SpanStatusCode }
