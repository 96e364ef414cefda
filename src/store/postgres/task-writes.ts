import type { Tracer } from '@opentelemetry/api'
import type pg from 'pg'
import { SwitchboardError } from '../../model/errors.ts'
import { stampEvent, type TaskEvent } from '../../model/events.ts'
import { applyEvent, emptyTask } from '../../model/fold.ts'
import { newId } from '../../model/ids.ts'
import { mayNotify, type PushTarget } from '../../model/push.ts'
import type { Task } from '../../model/task.ts'
import { nowIso } from '../../model/time.ts'
import { tracedCommit } from '../commit-span.ts'
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  CreateTaskResult,
  IdempotencyKey,
} from '../contract.ts'
import { idempotencyConflict } from '../idempotency.ts'
import { openingEvents } from '../opening.ts'
import { visible } from '../rows.ts'
import { runPendingAfter } from '../run-pending.ts'
import { joinDocuments, run, transaction } from './db.ts'
import { formatTaskNote } from './notify.ts'
import { OutboxRows } from './rows.ts'
import type { TaskSql } from './task-sql.ts'

/** What the two writers need from the store. */
export interface WriteContext {
  pool: pg.Pool
  sql: TaskSql
  replicaTag: string
  /** Traces each write transaction as a `store.commit` span; absent, tracing is off. */
  tracer?: Tracer | undefined
  /** Told the task row each committed write left, so the next append can skip reading it. */
  written?: ((task: Task, row: KnownTask) => void) | undefined
}

/** What an append needs of a task row besides its version (the snapshot's). */
export interface KnownTask {
  /** The task, as JSON: parsed afresh for each fold, so no caller shares the object. */
  snapshot: string
  tenant: string
  owner: string
  configs: readonly { id: string; target: PushTarget }[]
}

/** One write's events row (INSERT_EVENTS in task-sql.ts; the group commit's too): none without events. */
export const eventsRow = (events: readonly TaskEvent[]) => ({
  last_seq: events.at(-1)?.seq ?? null,
  events: JSON.stringify(events),
})

/** One write transaction, in its `store.commit` span when tracing. */
const writeTransaction = <T>(
  ctx: WriteContext,
  operation: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> =>
  ctx.tracer
    ? tracedCommit(ctx.tracer, 'postgresql', operation, () => transaction(ctx.pool, work))
    : transaction(ctx.pool, work)

interface LockedTask {
  snapshot: Task
  tenant: string
  owner: string
  lease_owner: string | null
  version: number
  configs: { id: string; target: PushTarget }[]
}

/** A creation folded in JS, ready for either writer: its rows, events and outbox. */
export interface CreatePlan {
  request: CreateTaskRequest
  task: Task
  events: TaskEvent[]
  /** The task as created, as the row's snapshot. */
  snapshot: string
  configs: { id: string; target: PushTarget }[]
  outbox: OutboxRows
}

export const planCreate = (request: CreateTaskRequest): CreatePlan => {
  const task = emptyTask(request.header)
  const events = openingEvents(request, nowIso())
  for (const event of events) applyEvent(task, event)
  const snapshot = JSON.stringify(task)
  const configs = (request.pushTargets ?? []).map((target) => ({ id: newId(), target }))
  const outbox = new OutboxRows()
  // The opening status is a status change like any other: notify it with the task as created.
  for (const event of events) outbox.add(configs, event, snapshot)
  return { request, task, events, snapshot, configs, outbox }
}

/**
 * createTask on the locked path: the task row first (the idempotency key may turn it into a
 * read), then the rest. Group commit sends here the creations whose key was held.
 */
export const createTask = async (ctx: WriteContext, plan: CreatePlan): Promise<CreateTaskResult> => {
  const result = await writeTransaction(ctx, 'createTask', async (client): Promise<CreateTaskResult> => {
    const { request, task, events, snapshot, configs, outbox } = plan
    const { idempotency, lease } = request
    const row = {
      id: task.id,
      tenant: task.tenant,
      owner: task.owner,
      agent: task.agent,
      context_id: task.contextId,
      state: task.state,
      version: task.version,
      created_at: task.createdAt,
      status_at: task.statusAt,
      lease_owner: lease?.owner ?? null,
      lease_ms: lease?.ttlMs ?? null,
      snapshot,
    }
    if (idempotency === undefined) await run(client, ctx.sql.insertTask, row)
    else {
      const existing = await insertKeyed(client, ctx.sql, row, idempotency)
      if (existing) return { task: existing, events: [], created: false, leased: false }
    }
    await run(client, ctx.sql.openTask, {
      task_id: task.id,
      tenant: task.tenant,
      owner: task.owner,
      config_created_at: task.createdAt,
      ...eventsRow(events),
      config_ids: configs.map((c) => c.id),
      config_targets: joinDocuments(configs.map((c) => JSON.stringify(c.target))),
      ...outbox.params(),
      event_note: formatTaskNote(ctx.replicaTag, task.id, task.version),
      runnable: lease === undefined,
      work_note: ctx.replicaTag,
    })
    return { task, events, created: true, leased: lease !== undefined, ...(outbox.any && { outbox: true }) }
  })
  // Told only once committed: an attempt rolled back (and redone) must leave no row to fold onto.
  const { task, snapshot, configs } = plan
  if (result.created) ctx.written?.(task, { snapshot, tenant: task.tenant, owner: task.owner, configs })
  return result
}

/**
 * Inserts the task row if its key is free (or past the window); else returns the key's task when
 * the request is the one it was recorded for, and refuses any other. A key whose task retention
 * deleted is dropped and the insert tried once more.
 */
const insertKeyed = async (
  client: pg.PoolClient,
  sql: TaskSql,
  row: Record<string, unknown>,
  idempotency: IdempotencyKey,
): Promise<Task | undefined> => {
  const { key, fingerprint, windowMs } = idempotency
  const keyed = Object.assign({}, row, { idempotency_key: key, fingerprint, window_ms: windowMs })
  for (let attempt = 0; (await run(client, sql.insertKeyedTask, keyed)).rowCount === 0; attempt += 1) {
    const scope = { tenant: row.tenant, owner: row.owner, idempotency_key: key }
    const held = (
      await run<{ fingerprint: string | null; task_id: string; snapshot: Task | null }>(
        client,
        sql.keyedTask,
        scope,
      )
    ).rows[0]
    if (held?.snapshot) {
      if (held.fingerprint !== null && held.fingerprint !== fingerprint) throw idempotencyConflict()
      return held.snapshot
    }
    // One round drops a dangling key (or finds the key swept meanwhile); the next one claims it.
    if (attempt > 0) throw new SwitchboardError('INTERNAL', `idempotency key ${key} lost its task`)
    if (held) await run(client, sql.dropDanglingKey, { ...scope, task_id: held.task_id })
  }
  return undefined
}

/** An append folded in JS onto the task as it stood: what either writer commits. */
export interface AppendPlan {
  task: Task
  events: TaskEvent[]
  /** The folded task, as the row's snapshot. */
  snapshot: string
  /** Each artifact's row: its id, its event's seq and its file bytes (the artifact is in the event). */
  artifacts: { id: string; seq: number; bytes: Uint8Array | null }[]
  /** Configs that come with the append. */
  added: { id: string; target: PushTarget }[]
  outbox: OutboxRows
  at: string
  runPending: boolean | undefined
  requestRun: boolean
  release: boolean
}

/**
 * Folds the request onto `task` (mutated; applyEvent decides every race and throws on a refused
 * event) and computes the outbox rows for `configs`, the task's push configs before the append.
 */
export const planAppend = (
  task: Task,
  configs: readonly { id: string; target: PushTarget }[],
  request: AppendRequest,
): AppendPlan => {
  const at = nowIso()
  const events: TaskEvent[] = []
  const artifacts: AppendPlan['artifacts'] = []
  const outbox = new OutboxRows()
  // Configs that come with the append hear of its events like the ones already there.
  const added = (request.pushTargets ?? []).map((target) => ({ id: newId(), target }))
  const notified = added.length > 0 ? [...configs, ...added] : configs
  for (const body of request.events) {
    const event = stampEvent(body, task.version + 1, at)
    applyEvent(task, event)
    events.push(event)
    if (event.kind === 'artifact') {
      const bytes = request.blobs?.get(event.artifact.id) ?? null
      artifacts.push({ id: event.artifact.id, seq: event.seq, bytes })
    }
    // Most chunks notify nobody: the task is written out only for an event that may.
    if (notified.length > 0 && mayNotify(event)) outbox.add(notified, event, JSON.stringify(task))
  }
  const requestRun = request.requestRun === true
  const release = request.releaseLease === true && request.leaseOwner !== undefined
  const runPending = runPendingAfter(task.state, { requestRun, release })
  const snapshot = JSON.stringify(task)
  return { task, events, snapshot, artifacts, added, outbox, at, runPending, requestRun, release }
}

/** The errors of an append whose task row is missing, out of scope, or leased to another runner. */
export const refuseAppend = (
  row: { tenant: string; owner: string } | undefined,
  leaseOwner: string | null | undefined,
  request: AppendRequest,
): void => {
  if (!row || !visible(row, request.scope)) {
    throw new SwitchboardError('TASK_NOT_FOUND', `no task ${request.taskId}`)
  }
  if (request.leaseOwner !== undefined && leaseOwner !== request.leaseOwner) {
    throw new SwitchboardError('LEASE_LOST', `task ${request.taskId} is no longer leased to this runner`)
  }
}

/** append on the locked path: lock the row, fold each event onto it, write it all at once. */
export const appendEvents = async (ctx: WriteContext, request: AppendRequest): Promise<AppendResult> => {
  const { result, row } = await writeTransaction(ctx, 'append', async (client) => {
    const locked = await run<LockedTask>(client, ctx.sql.taskForUpdate, { task_id: request.taskId })
    const row = locked.rows[0]
    refuseAppend(row, row?.lease_owner, request)
    const { tenant, owner, configs, version } = row!
    const plan = planAppend(row!.snapshot, configs, request)
    const { task, events, artifacts, added, outbox } = plan
    const committed = await run(client, ctx.sql.commitAppend, {
      task_id: task.id,
      tenant,
      owner,
      ...eventsRow(events),
      artifact_ids: artifacts.map((a) => a.id),
      artifact_seqs: artifacts.map((a) => a.seq),
      artifact_bytes: artifacts.map((a) => a.bytes),
      config_ids: added.map((c) => c.id),
      config_targets: joinDocuments(added.map((c) => JSON.stringify(c.target))),
      config_created_at: plan.at,
      ...outbox.params(),
      state: task.state,
      version: task.version,
      status_at: task.statusAt,
      snapshot: plan.snapshot,
      run_pending: plan.runPending,
      request_run: plan.requestRun,
      release: plan.release,
      expected_version: version,
      event_note: formatTaskNote(ctx.replicaTag, task.id, task.version),
      work_note: ctx.replicaTag,
    })
    if (committed.rowCount !== 1) {
      throw new SwitchboardError('VERSION_CONFLICT', `concurrent modification of task ${task.id}`)
    }
    const result: AppendResult = { task, events, ...(outbox.any && { outbox: true }) }
    return { result, row: { snapshot: plan.snapshot, tenant, owner, configs: [...configs, ...added] } }
  })
  // As in createTask: only the committed row is remembered.
  ctx.written?.(result.task, row)
  return result
}
