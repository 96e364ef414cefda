import type { EventBody, TaskEvent } from './events.ts'
import type { Task } from './task.ts'

/**
 * Where a task's notifications go. Each dialect extends it with what its endpoints need (their
 * credentials) and renders the notifications of the targets of its `kind`.
 */
export interface PushTarget {
  /** The dialect the endpoint was registered through. */
  kind: string
  url: string
  /** Artifact events too, not only status changes. */
  artifacts?: boolean
}

export interface PushConfig {
  id: string
  taskId: string
  createdAt: string
  target: PushTarget
}

/**
 * Which events a target is notified of: status changes, and artifacts when it asked for them. Of a
 * streamed artifact, its opening and its last chunk (by then the whole artifact): a webhook call
 * per token would cost an outbox row holding the task, and a request, per token.
 */
export const notifies = (target: PushTarget, event: TaskEvent): boolean =>
  event.kind === 'status' || (target.artifacts === true && mayNotify(event))

/** Whether any target could be notified of the event (status, artifact, a last chunk). */
export const mayNotify = (event: EventBody): boolean =>
  event.kind === 'status' || event.kind === 'artifact' || (event.kind === 'chunk' && event.lastChunk)

export type DeliveryState = 'pending' | 'delivered' | 'dead'

/** One row of the push outbox: one event for one endpoint, with the task as it was at that event. */
export interface Delivery {
  id: string
  taskId: string
  seq: number
  configId: string
  target: PushTarget
  event: TaskEvent
  task: Task
  state: DeliveryState
  attempts: number
  createdAt: string
  nextAttemptAt: string
  lastError?: string
  deliveredAt?: string
}
