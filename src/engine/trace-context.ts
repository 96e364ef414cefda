import { context, type Link, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import type { Task, TraceContext } from '../model/task.ts'

/**
 * The W3C context of the active span, to keep with a task it creates; undefined when nothing is
 * traced (no propagator registered, or no span), so a task of an untraced server carries nothing.
 */
export const activeTraceContext = (): TraceContext | undefined => {
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  const { traceparent, tracestate } = carrier
  if (traceparent === undefined) return undefined
  return tracestate ? { traceparent, tracestate } : { traceparent }
}

/**
 * The link from a run resumed later (an answer's, a replay's) to the trace that created its task,
 * when the run is in another trace or in none; no link when the run already is in that trace.
 */
export const originLinks = (task: Task): Link[] => {
  if (task.traceContext === undefined) return []
  const origin = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { ...task.traceContext }))
  if (origin === undefined || !trace.isSpanContextValid(origin)) return []
  if (trace.getSpanContext(context.active())?.traceId === origin.traceId) return []
  return [{ context: origin }]
}
