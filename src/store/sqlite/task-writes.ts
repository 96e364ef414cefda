import { SwitchboardError } from '../../model/errors.ts'
import { stampEvent, type TaskEvent } from '../../model/events.ts'
import { applyEvent, assertNotTerminal, changesArtifacts, emptyTask } from '../../model/fold.ts'
import { newId } from '../../model/ids.ts'
import { mayNotify, notifies, type PushConfig, type PushTarget } from '../../model/push.ts'
import type { TaskState } from '../../model/states.ts'
import type { Task, TaskHeader } from '../../model/task.ts'
import { nowIso } from '../../model/time.ts'
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  CreateTaskResult,
  IdempotencyKey,
} from '../contract.ts'
import { idempotencyConflict } from '../idempotency.ts'
import { openingEvents } from '../opening.ts'
import { outboxRows, toPushConfig, visible } from '../rows.ts'
import { runPendingAfter } from '../run-pending.ts'
import type { PushSql } from './push-sql.ts'
import { currentTask, foldRow, readTask, type SnapshotRow, type SqlitePushConfigRow } from './rows.ts'
import { KEEP, SNAPSHOT_EVERY, snapshotOf, storedArtifacts } from './snapshot.ts'
import type { TaskSql } from './task-sql.ts'

/**
 * The statements the writers use. Every function here runs inside a group commit, which may run it
 * again after a rollback (GroupCommit in db.ts): it only reads and writes the database.
 */
export interface WriteContext {
  tasks: TaskSql
  push: PushSql
}

/** What an append needs of the task row: its state and identity, not its snapshot. */
interface TaskHead {
  state: TaskState
  tenant: string
  owner: string
  lease_owner: string | null
  /** The version the snapshot is at; quiet events may follow it. */
  version: number
}

type TaskOwner = Pick<Task, 'id' | 'tenant' | 'owner'>

export const createTask = (ctx: WriteContext, request: CreateTaskRequest): CreateTaskResult => {
  const { header, idempotency } = request
  if (idempotency !== undefined) {
    const existing = keyedTask(ctx, header, idempotency)
    if (existing) return { task: existing, events: [], created: false, leased: false }
    ctx.tasks.putIdempotencyKey.run(
      header.tenant,
      header.owner,
      idempotency.key,
      idempotency.fingerprint,
      header.id,
      Date.now(),
    )
  }
  const task = emptyTask(header)
  const events = openingEvents(request, nowIso())
  for (const event of events) applyEvent(task, event)
  const lease = request.lease
  ctx.tasks.insertTask.run(
    task.id,
    task.tenant,
    task.owner,
    task.agent,
    task.contextId,
    task.state,
    task.version,
    task.createdAt,
    task.statusAt,
    lease?.owner ?? null,
    lease ? Date.now() + lease.ttlMs : null,
    JSON.stringify(task),
  )
  insertEvents(ctx, task.id, events)
  const configs = addPushConfigs(ctx, task, request.pushTargets, task.createdAt)
  let outbox = 0
  if (configs.length > 0) {
    // The opening status is a status change like any other: notify it with the task as created.
    const snapshot = JSON.stringify(task)
    for (const event of events) outbox += enqueueDeliveries(ctx, task.id, configs, event, snapshot)
  }
  return { task, events, created: true, leased: lease !== undefined, ...(outbox > 0 && { outbox: true }) }
}

/**
 * The task a live key stands for, when the request is the one it was recorded for (a key from
 * before fingerprints matches any); another request under a live key is refused.
 */
const keyedTask = (ctx: WriteContext, header: TaskHeader, idempotency: IdempotencyKey): Task | undefined => {
  const held = ctx.tasks.idempotencyKey.get(header.tenant, header.owner, idempotency.key) as
    | { fingerprint: string | null; task_id: string; created_at: number }
    | undefined
  if (!held || held.created_at <= Date.now() - idempotency.windowMs) return undefined
  const row = ctx.tasks.snapshotById.get(held.task_id) as SnapshotRow | undefined
  if (!row) return undefined
  if (held.fingerprint !== null && held.fingerprint !== idempotency.fingerprint) throw idempotencyConflict()
  return currentTask(row)
}

/**
 * Log, artifact and chunk events change nothing but the log, so they are appended as event rows only:
 * a look at the task's state, no snapshot parsed or rewritten. Status changes and answers (and a
 * tail grown past SNAPSHOT_EVERY) fold the tail into a fresh snapshot, with a compare-and-set on
 * the row's version. Either way the task is exactly the fold of its log; readers fold the tail.
 */
export const appendEvents = (ctx: WriteContext, request: AppendRequest): AppendResult => {
  const quietable =
    request.requestRun !== true &&
    request.releaseLease !== true &&
    request.pushTargets === undefined &&
    request.events.every((e) => e.kind === 'log' || changesArtifacts(e))
  const head = (quietable ? ctx.tasks.taskHead : ctx.tasks.taskHeadAndSnapshot).get(request.taskId) as
    | (TaskHead & Partial<SnapshotRow>)
    | undefined
  if (!head || !visible(head, request.scope)) {
    throw new SwitchboardError('TASK_NOT_FOUND', `no task ${request.taskId}`)
  }
  if (request.leaseOwner !== undefined && head.lease_owner !== request.leaseOwner) {
    throw new SwitchboardError('LEASE_LOST', `task ${request.taskId} is no longer leased to this runner`)
  }
  if (head.snapshot !== undefined) return appendFolded(ctx, request, head, head as SnapshotRow)
  const last = (ctx.tasks.lastSeq.get(request.taskId) as { seq: number }).seq
  return last + request.events.length - head.version <= SNAPSHOT_EVERY
    ? appendQuiet(ctx, request, head, last)
    : appendFolded(ctx, request, head, ctx.tasks.snapshotById.get(request.taskId) as SnapshotRow)
}

const appendQuiet = (
  ctx: WriteContext,
  request: AppendRequest,
  head: TaskHead,
  last: number,
): AppendResult => {
  assertNotTerminal(request.taskId, head.state)
  const at = nowIso()
  const events = request.events.map((body, i) => stampEvent(body, last + 1 + i, at))
  const configs = events.some(mayNotify) ? pushConfigsOf(ctx, request.taskId) : []
  // Endpoints that hear of artifacts (A2A) get the task as it was at each one: fold it only then.
  const listened = configs.length > 0 && events.some((e) => configs.some((c) => notifies(c.target, e)))
  const task = listened ? readTask(ctx.tasks, request.taskId) : undefined
  insertEvents(ctx, request.taskId, events)
  insertArtifacts(ctx, request.taskId, events, request.blobs)
  let outbox = 0
  for (const event of events) {
    if (task) {
      applyEvent(task, event)
      // Most chunks notify nobody: the task is written out only for an event that may.
      if (mayNotify(event))
        outbox += enqueueDeliveries(ctx, request.taskId, configs, event, JSON.stringify(task))
    }
  }
  return new QuietAppend({ tasks: ctx.tasks, taskId: request.taskId, events, task, outbox: outbox > 0 })
}

/**
 * A quiet append's result: callers seldom read the task after a log or an artifact, so it is
 * folded only when one does. A class, its `task` a getter on the prototype: V8 keeps an object
 * literal's own getter, and all it closes over, through the young collections until a full one.
 */
class QuietAppend implements AppendResult {
  readonly events: TaskEvent[]
  readonly outbox?: true
  readonly #tasks: TaskSql
  readonly #taskId: string
  #task: Task | undefined

  constructor(options: {
    tasks: TaskSql
    taskId: string
    events: TaskEvent[]
    task: Task | undefined
    outbox: boolean
  }) {
    this.events = options.events
    if (options.outbox) this.outbox = true
    this.#tasks = options.tasks
    this.#taskId = options.taskId
    this.#task = options.task
  }

  get task(): Task {
    this.#task ??= readTask(this.#tasks, this.#taskId)!
    return this.#task
  }
}

const appendFolded = (
  ctx: WriteContext,
  request: AppendRequest,
  head: TaskHead,
  row: SnapshotRow,
): AppendResult => {
  const folded = foldRow(row, { keepStored: true })
  const { task } = folded
  // The first event since the stored artifacts that changed them: until it, they are the task's.
  let artifactsChangedAt = folded.artifactsChangedAt
  const at = nowIso()
  // Configs that come with the append hear of its events like the ones already there.
  addPushConfigs(ctx, task, request.pushTargets, at)
  const configs = request.events.some(mayNotify) ? pushConfigsOf(ctx, request.taskId) : []
  const events: TaskEvent[] = []
  let outbox = 0
  for (const body of request.events) {
    const event = stampEvent(body, task.version + 1, at)
    applyEvent(task, event)
    events.push(event)
    if (artifactsChangedAt === undefined && changesArtifacts(event)) artifactsChangedAt = event.seq
    if (configs.length > 0 && mayNotify(event))
      outbox += enqueueDeliveries(ctx, task.id, configs, event, JSON.stringify(task))
  }
  const written = insertEvents(ctx, task.id, events)
  const stored = storedArtifacts(row, folded, {
    version: head.version,
    changedAt: artifactsChangedAt,
    written,
  })
  insertArtifacts(ctx, task.id, events, request.blobs)
  const release = request.releaseLease === true && request.leaseOwner !== undefined
  const runPending = runPendingAfter(task.state, { requestRun: request.requestRun === true, release })
  const updated = ctx.tasks.updateTask.run(
    task.state,
    task.version,
    task.statusAt,
    stored === undefined ? JSON.stringify(task) : snapshotOf(task),
    Number(stored?.json !== KEEP),
    stored === undefined || stored.json === KEEP ? null : stored.json,
    stored?.version ?? null,
    runPending === undefined ? null : Number(runPending),
    Number(release),
    Number(release),
    task.id,
    head.version,
  )
  if (updated.changes !== 1) {
    throw new SwitchboardError('VERSION_CONFLICT', `concurrent modification of task ${task.id}`)
  }
  return { task, events, ...(outbox > 0 && { outbox: true }) }
}

export const insertPushConfig = (ctx: WriteContext, task: TaskOwner, config: PushConfig): void => {
  ctx.push.insertPushConfig.run(
    task.id,
    config.id,
    task.tenant,
    task.owner,
    config.createdAt,
    JSON.stringify(config.target),
  )
}

/** New push configs for targets that come with a write. */
const addPushConfigs = (
  ctx: WriteContext,
  task: TaskOwner,
  targets: readonly PushTarget[] | undefined,
  createdAt: string,
): PushConfig[] =>
  (targets ?? []).map((target) => {
    const config: PushConfig = { id: newId(), taskId: task.id, createdAt, target }
    insertPushConfig(ctx, task, config)
    return config
  })

const pushConfigsOf = (ctx: WriteContext, taskId: string): PushConfig[] =>
  (ctx.push.pushConfigsOf.all(taskId) as SqlitePushConfigRow[]).map((row) =>
    toPushConfig(taskId, row, JSON.parse),
  )

/** The statements that insert artifact rows, the most rows first. */
const ARTIFACT_INSERTS = [
  [16, 'insertArtifacts16'],
  [8, 'insertArtifacts8'],
  [4, 'insertArtifacts4'],
  [2, 'insertArtifacts2'],
  [1, 'insertArtifacts1'],
] as const

/**
 * An artifact's row is its id, its task and its event's seq: the artifact itself is in the event
 * (and in the task row's snapshot or artifacts), where getArtifact reads it. Its tenant and owner
 * are the task's. The rows of an append go in by powers of two, one statement each: a statement's
 * run costs about as much as the row it inserts (bench/HISTORY.md, _Artifact rows in one statement_).
 */
const insertArtifacts = (
  ctx: WriteContext,
  taskId: string,
  events: readonly TaskEvent[],
  blobs: AppendRequest['blobs'],
): void => {
  const rows: (string | number)[] = []
  for (const event of events) {
    if (event.kind !== 'artifact') continue
    const { id } = event.artifact
    rows.push(id, taskId, event.seq)
    const bytes = blobs?.get(id)
    if (bytes !== undefined) ctx.tasks.insertArtifactBytes.run(id, bytes)
  }
  let at = 0
  for (const [count, statement] of ARTIFACT_INSERTS) {
    const size = 3 * count
    while (rows.length - at >= size) {
      ctx.tasks[statement].run(at === 0 && size === rows.length ? rows : rows.slice(at, at + size))
      at += size
    }
  }
}

const enqueueDeliveries = (
  ctx: WriteContext,
  taskId: string,
  configs: readonly PushConfig[],
  event: TaskEvent,
  taskJson: string,
): number => {
  const rows = outboxRows(configs, event, taskJson)
  if (rows.length === 0) return 0
  const now = Date.now()
  const createdAt = nowIso()
  for (const row of rows) {
    ctx.push.insertDelivery.run(
      row.id,
      taskId,
      row.seq,
      row.configId,
      row.target,
      row.event,
      row.task,
      createdAt,
      now,
    )
  }
  return rows.length
}

/**
 * The events of one append (or a task's opening pair) are one row, keyed by the last one's seq:
 * a run's batch costs one B-tree insert, not one per event. A reader asks for the rows ending
 * after its cursor and skips the events it has (eventsOfRows in store/rows.ts).
 */
const insertEvents = (ctx: WriteContext, taskId: string, events: readonly TaskEvent[]): number => {
  const last = events.at(-1)
  if (!last) return 0
  const json = JSON.stringify(events)
  ctx.tasks.insertEvent.run(taskId, last.seq, json)
  return json.length
}
