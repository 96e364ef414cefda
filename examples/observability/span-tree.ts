import { SpanKind } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'

/** The attributes worth a glance, in this order; the rest stay in a real backend's span view. */
const SHOWN = [
  'switchboard.agent',
  'switchboard.binding',
  'switchboard.protocol.version',
  'switchboard.task.id',
  'switchboard.task.state',
  'switchboard.run.suspended',
  'switchboard.error.code',
  'switchboard.policy.decision',
  'switchboard.push.outcome',
  'http.response.status_code',
] as const

const LABELS: Record<(typeof SHOWN)[number], string> = {
  'switchboard.agent': 'agent',
  'switchboard.binding': 'binding',
  'switchboard.protocol.version': 'v',
  'switchboard.task.id': 'task',
  'switchboard.task.state': 'state',
  'switchboard.run.suspended': 'suspended',
  'switchboard.error.code': 'error',
  'switchboard.policy.decision': 'policy',
  'switchboard.push.outcome': 'push',
  'http.response.status_code': 'status',
}

const millis = (span: ReadableSpan): number => span.duration[0] * 1e3 + span.duration[1] / 1e6
const startOf = (span: ReadableSpan): number => span.startTime[0] * 1e9 + span.startTime[1]

/** Task ids are UUIDv7: they begin with the time, so their random tail tells the tasks apart. */
const shown = (key: (typeof SHOWN)[number], value: unknown): string =>
  `${LABELS[key]}=${key === 'switchboard.task.id' ? `…${String(value).slice(-8)}` : String(value)}`

const describe = (span: ReadableSpan): string => {
  const attributes = SHOWN.filter((key) => span.attributes[key] !== undefined).map((key) =>
    shown(key, span.attributes[key]),
  )
  const kind = SpanKind[span.kind].toLowerCase()
  return `${span.name} [${kind}] ${millis(span).toFixed(1)} ms${attributes.length ? `  ${attributes.join(' ')}` : ''}`
}

/**
 * The finished spans as one indented tree per trace, children under their parent in start order,
 * each span's events (the task's state changes) beneath it. A span whose parent is not among them
 * (a remote caller's) heads a tree of its own.
 */
export const formatSpanTree = (spans: readonly ReadableSpan[]): string[] => {
  const ids = new Set(spans.map((span) => span.spanContext().spanId))
  const children = new Map<string, ReadableSpan[]>()
  const roots: ReadableSpan[] = []
  for (const span of [...spans].sort((a, b) => startOf(a) - startOf(b))) {
    const parent = span.parentSpanContext?.spanId
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span])
    else roots.push(span)
  }
  const lines: string[] = []
  const walk = (span: ReadableSpan, depth: number): void => {
    const indent = '  '.repeat(depth)
    lines.push(`${indent}${describe(span)}`)
    for (const event of span.events) {
      const state = event.attributes?.['switchboard.task.state']
      lines.push(`${indent}  · ${event.name}${state === undefined ? '' : ` ${String(state)}`}`)
    }
    for (const child of children.get(span.spanContext().spanId) ?? []) walk(child, depth + 1)
  }
  for (const root of roots) {
    lines.push(`trace ${root.spanContext().traceId}`)
    walk(root, 1)
  }
  return lines
}
