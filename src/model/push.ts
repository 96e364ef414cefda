import type { TaskEvent } from './events.ts'
import type { Task } from './task.ts'

/**
 * Where a task's notifications go. A Clawpedia target comes from the agent's notification_config
 * (one header line, e.g. "Authorization: Bearer …"); an A2A target from a TaskPushNotificationConfig.
 */
export type PushTarget =
  | { kind: 'clawpedia'; url: string; authHeader?: string }
  | { kind: 'a2a'; url: string; token?: string; authentication?: { scheme: string; credentials?: string } }

export interface PushConfig {
  id: string
  taskId: string
  createdAt: string
  target: PushTarget
}

/** Which events a target is notified of: Clawpedia, status changes; A2A, status changes and artifacts. */
export const notifies = (target: PushTarget, event: TaskEvent): boolean =>
  event.kind === 'status' || (target.kind === 'a2a' && event.kind === 'artifact')

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
