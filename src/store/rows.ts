import type { TaskEvent } from '../model/events.ts'
import { newId } from '../model/ids.ts'
import {
  type Delivery,
  type DeliveryState,
  notifies,
  type PushConfig,
  type PushTarget,
} from '../model/push.ts'
import type { Scope, Task } from '../model/task.ts'
import type { ApiKey, StoredArtifact } from './contract.ts'

/**
 * Row mapping shared by the backends. They differ only in column types: SQLite keeps JSON as text
 * and some times as epoch milliseconds, PostgreSQL hands back parsed JSON and Dates. Each backend
 * passes `Json` (its JSON column type) and the function that reads one.
 */

/** A time column as either backend returns it: ISO text (kept as written), epoch milliseconds or a Date. */
export type TimeColumn = string | number | Date

export const iso = (value: TimeColumn): string =>
  typeof value === 'string' ? value : new Date(value).toISOString()

/** Reads a JSON column: `JSON.parse` for text, the value itself for a driver that parsed it. */
export type JsonColumn<Json> = (value: Json) => unknown

/**
 * A task's rows are visible in its scope only: its tenant, and its owner unless the scope is
 * tenant-wide (no owner); no scope (internal callers) sees every row.
 */
export const visible = (row: { tenant: string; owner: string }, scope: Scope | undefined): boolean =>
  scope === undefined ||
  (row.tenant === scope.tenant && (scope.owner === undefined || row.owner === scope.owner))

/**
 * What an artifact's read finds: its task's scope, its file bytes, its event's seq and the events
 * row holding that event (null when there is none, which no store writes).
 */
export interface ArtifactRow<Json> {
  seq: number
  tenant: string
  owner: string
  bytes: Uint8Array | null
  body: Json | null
}

/** The artifact as its event recorded it, if the scope may see its task. */
export const storedArtifactOf = <Json>(
  row: ArtifactRow<Json> | undefined,
  artifactId: string,
  scope: Scope,
  json: JsonColumn<Json>,
): StoredArtifact | undefined => {
  if (!row || row.body === null || !visible(row, scope)) return undefined
  const event = (json(row.body) as TaskEvent[]).find((e) => e.seq === row.seq)
  if (event?.kind !== 'artifact' || event.artifact.id !== artifactId) return undefined
  const stored: StoredArtifact = { artifact: event.artifact }
  if (row.bytes !== null) stored.bytes = row.bytes
  return stored
}

/** A row of the events table: the events of one append (or a task's opening), in one JSON array. */
export interface EventRow<Json> {
  /** Ascending and contiguous; the row is keyed by the last one's seq. */
  body: Json
}

/**
 * The events after `afterSeq` in rows of batches, in order, at most `limit`. A reader asks for the
 * rows keyed after its cursor (each ends after it) and skips the events of the first it already has.
 */
export const eventsOfRows = <Json>(
  rows: readonly EventRow<Json>[],
  json: JsonColumn<Json>,
  afterSeq: number,
  limit = Number.POSITIVE_INFINITY,
): TaskEvent[] => {
  const events: TaskEvent[] = []
  for (const row of rows) {
    for (const event of json(row.body) as TaskEvent[]) {
      if (event.seq <= afterSeq) continue
      events.push(event)
      if (events.length >= limit) return events
    }
  }
  return events
}

export interface DeliveryRow<Json> {
  id: string
  task_id: string
  seq: number
  config_id: string
  target: Json
  event: Json
  task: Json
  state: DeliveryState
  attempts: number
  created_at: TimeColumn
  next_attempt_at: TimeColumn
  last_error: string | null
  delivered_at: TimeColumn | null
}

export const toDelivery = <Json>(row: DeliveryRow<Json>, json: JsonColumn<Json>): Delivery => {
  const delivery: Delivery = {
    id: row.id,
    taskId: row.task_id,
    seq: row.seq,
    configId: row.config_id,
    target: json(row.target) as PushTarget,
    event: json(row.event) as TaskEvent,
    task: json(row.task) as Task,
    state: row.state,
    attempts: row.attempts,
    createdAt: iso(row.created_at),
    nextAttemptAt: iso(row.next_attempt_at),
  }
  if (row.last_error !== null) delivery.lastError = row.last_error
  if (row.delivered_at !== null) delivery.deliveredAt = iso(row.delivered_at)
  return delivery
}

export interface PushConfigRow<Json> {
  id: string
  created_at: TimeColumn
  target: Json
}

export const toPushConfig = <Json>(
  taskId: string,
  row: PushConfigRow<Json>,
  json: JsonColumn<Json>,
): PushConfig => ({
  id: row.id,
  taskId,
  createdAt: iso(row.created_at),
  target: json(row.target) as PushTarget,
})

export interface ApiKeyRow<Json> {
  id: string
  principal: string
  tenant: string
  scopes: Json
  label: string | null
  created_at: TimeColumn
  revoked_at: TimeColumn | null
}

export const toApiKey = <Json>(row: ApiKeyRow<Json>, json: JsonColumn<Json>): ApiKey => {
  const key: ApiKey = {
    id: row.id,
    principal: row.principal,
    tenant: row.tenant,
    scopes: json(row.scopes) as string[],
    createdAt: iso(row.created_at),
  }
  if (row.label !== null) key.label = row.label
  if (row.revoked_at !== null) key.revokedAt = iso(row.revoked_at)
  return key
}

/** One outbox row, its JSON columns as text (both backends bind JSON as text). */
export interface OutboxRow {
  id: string
  seq: number
  configId: string
  target: string
  event: string
  task: string
}

/** One outbox row per push config the event notifies, carrying the task as it was at that event. */
export const outboxRows = (
  configs: readonly { id: string; target: PushTarget }[],
  event: TaskEvent,
  taskJson: string,
): OutboxRow[] => {
  const rows: OutboxRow[] = []
  const eventJson = JSON.stringify(event)
  for (const config of configs) {
    if (!notifies(config.target, event)) continue
    rows.push({
      id: newId(),
      seq: event.seq,
      configId: config.id,
      target: JSON.stringify(config.target),
      event: eventJson,
      task: taskJson,
    })
  }
  return rows
}
