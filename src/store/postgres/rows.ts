import type { TaskEvent } from '../../model/events.ts'
import type { Delivery, DeliveryState, PushConfig, PushTarget } from '../../model/push.ts'
import { notifies } from '../../model/push.ts'
import type { Scope, Task } from '../../model/task.ts'
import { iso } from './db.ts'

/** pg parses `json` columns itself, so rows carry objects; timestamptz columns arrive as Date. */
export interface DeliveryRow {
  id: string
  task_id: string
  seq: number
  config_id: string
  target: PushTarget
  event: TaskEvent
  task: Task
  state: DeliveryState
  attempts: number
  created_at: Date
  next_attempt_at: Date
  last_error: string | null
  delivered_at: Date | null
}

export const toDelivery = (row: DeliveryRow): Delivery => {
  const delivery: Delivery = {
    id: row.id,
    taskId: row.task_id,
    seq: row.seq,
    configId: row.config_id,
    target: row.target,
    event: row.event,
    task: row.task,
    state: row.state,
    attempts: row.attempts,
    createdAt: iso(row.created_at),
    nextAttemptAt: iso(row.next_attempt_at),
  }
  if (row.last_error !== null) delivery.lastError = row.last_error
  if (row.delivered_at !== null) delivery.deliveredAt = iso(row.delivered_at)
  return delivery
}

export interface PushConfigRow {
  id: string
  created_at: Date
  target: PushTarget
}

export const toPushConfig = (taskId: string, row: PushConfigRow): PushConfig => ({
  id: row.id,
  taskId,
  createdAt: iso(row.created_at),
  target: row.target,
})

export const visible = (row: { tenant: string; owner: string }, scope: Scope | undefined): boolean =>
  scope === undefined || (row.tenant === scope.tenant && row.owner === scope.owner)

/** Outbox rows for one commit, as the parallel arrays the insert unnests. */
export class OutboxRows {
  readonly delivery_ids: string[] = []
  readonly delivery_seqs: number[] = []
  readonly delivery_configs: string[] = []
  readonly delivery_targets: string[] = []
  readonly delivery_events: string[] = []
  readonly delivery_tasks: string[] = []

  /** One row per config the event notifies, carrying the task as it was at that event. */
  add(
    configs: readonly { id: string; target: PushTarget }[],
    event: TaskEvent,
    taskJson: string,
    newId: () => string,
  ): void {
    const eventJson = JSON.stringify(event)
    for (const config of configs) {
      if (!notifies(config.target, event)) continue
      this.delivery_ids.push(newId())
      this.delivery_seqs.push(event.seq)
      this.delivery_configs.push(config.id)
      this.delivery_targets.push(JSON.stringify(config.target))
      this.delivery_events.push(eventJson)
      this.delivery_tasks.push(taskJson)
    }
  }
}
