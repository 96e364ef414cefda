import type { TaskEvent } from '../../model/events.ts'
import type { PushTarget } from '../../model/push.ts'
import { type DeliveryRow, type JsonColumn, outboxRows, type PushConfigRow } from '../rows.ts'
import { joinDocuments } from './db.ts'

/** pg parses `json` columns itself, so rows carry objects; timestamptz columns arrive as Date. */
export type PgDeliveryRow = DeliveryRow<unknown>
export type PgPushConfigRow = PushConfigRow<unknown>

/** A JSON column as pg returns it: already parsed. */
export const parsed: JsonColumn<unknown> = (value) => value

/** Outbox rows for one commit, as the parallel arrays the insert unnests. */
export class OutboxRows {
  readonly delivery_ids: string[] = []
  readonly delivery_seqs: number[] = []
  readonly delivery_configs: string[] = []
  readonly delivery_targets: string[] = []
  readonly delivery_events: string[] = []
  readonly delivery_tasks: string[] = []

  get any(): boolean {
    return this.delivery_ids.length > 0
  }

  /** The insert's parameters: each JSON column as one parameter (joinDocuments). */
  params(): Record<string, unknown> {
    return {
      delivery_ids: this.delivery_ids,
      delivery_seqs: this.delivery_seqs,
      delivery_configs: this.delivery_configs,
      delivery_targets: joinDocuments(this.delivery_targets),
      delivery_events: joinDocuments(this.delivery_events),
      delivery_tasks: joinDocuments(this.delivery_tasks),
    }
  }

  add(configs: readonly { id: string; target: PushTarget }[], event: TaskEvent, taskJson: string): void {
    for (const row of outboxRows(configs, event, taskJson)) {
      this.delivery_ids.push(row.id)
      this.delivery_seqs.push(row.seq)
      this.delivery_configs.push(row.configId)
      this.delivery_targets.push(row.target)
      this.delivery_events.push(row.event)
      this.delivery_tasks.push(row.task)
    }
  }
}
