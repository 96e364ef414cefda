import {
  type Attributes,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { creatorOf } from '../model/caller.ts'
import type { StatusEvent, TaskEvent } from '../model/events.ts'
import { textOf } from '../model/parts.ts'
import type { Task } from '../model/task.ts'
import { ATTR } from './tracing.ts'

/** A task's events after a sequence, at most `limit`, in order (the store's `readEvents`). */
export type EventReader = (taskId: string, afterSeq: number, limit: number) => Promise<TaskEvent[]>

/** Events read per page when the span gathers the task's state changes. */
const PAGE = 500

/** The status event's message as text: the agent's message, or the question it asks. */
const statusText = (event: StatusEvent): string | undefined =>
  (event.message && textOf(event.message.parts)) ?? event.prompt

const attributesOf = (task: Task): Attributes => {
  const creator = creatorOf(task)
  const attributes: Attributes = {
    [ATTR.taskId]: task.id,
    [ATTR.contextId]: task.contextId,
    [ATTR.agent]: task.agent,
    [ATTR.state]: task.state,
    [ATTR.principal]: creator.principal,
    [ATTR.tenant]: creator.tenant,
  }
  if (task.artifacts.length > 0) attributes[ATTR.artifactIds] = task.artifacts.map((a) => a.id)
  return attributes
}

/**
 * The `task` span: the task's whole life, from its creation to its terminal status, in the trace
 * of the request that created it, with each state change as a `task.status` event at its own
 * time. A task may be created on one replica and finished on another, or outlive a restart, so
 * the span is built afterwards, by whichever replica commits the terminal status, from the task
 * as committed and its stored events (read only when the span records: off costs nothing).
 */
export const recordTaskSpan = async (tracer: Tracer, task: Task, readEvents: EventReader): Promise<void> => {
  const origin = task.traceContext
    ? propagation.extract(ROOT_CONTEXT, { ...task.traceContext })
    : ROOT_CONTEXT
  // What ended the task (the last run, a cancel request) is linked when it is in another trace.
  const ending = trace.getSpanContext(context.active())
  const links: Link[] =
    ending && trace.isSpanContextValid(ending) && ending.traceId !== trace.getSpanContext(origin)?.traceId
      ? [{ context: ending }]
      : []
  const span = tracer.startSpan(
    'task',
    { kind: SpanKind.INTERNAL, startTime: new Date(task.createdAt), links, attributes: attributesOf(task) },
    origin,
  )
  if (!span.isRecording()) {
    span.end()
    return
  }
  try {
    for (let after = 0; ; ) {
      const events = await readEvents(task.id, after, PAGE)
      for (const event of events) {
        if (event.kind !== 'status') continue
        const text = statusText(event)
        span.addEvent(
          'task.status',
          { [ATTR.state]: event.state, ...(text !== undefined && { [ATTR.statusMessage]: text }) },
          new Date(event.at),
        )
      }
      const last = events.at(-1)
      if (events.length < PAGE || last === undefined) break
      after = last.seq
    }
    if (task.state === 'FAILED') {
      span.setAttribute(ATTR.errorCode, task.error?.code ?? 'INTERNAL')
      span.setStatus({ code: SpanStatusCode.ERROR, ...(task.error && { message: task.error.message }) })
    }
  } finally {
    span.end(new Date(task.statusAt))
  }
}
