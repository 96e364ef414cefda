import Database from 'better-sqlite3'
import type { Artifact } from '../../model/artifacts.ts'
import { SwitchboardError } from '../../model/errors.ts'
import { stampEvent, type TaskEvent } from '../../model/events.ts'
import { applyEvent, assertNotTerminal, emptyTask } from '../../model/fold.ts'
import { newId } from '../../model/ids.ts'
import {
  type Delivery,
  type DeliveryState,
  notifies,
  type PushConfig,
  type PushTarget,
} from '../../model/push.ts'
import { isTerminal, type TaskState } from '../../model/states.ts'
import type { Scope, Task } from '../../model/task.ts'
import { nowIso } from '../../model/time.ts'
import {
  type AppendRequest,
  type AppendResult,
  type ClaimDeliveriesRequest,
  type ClaimedTask,
  type ClaimTasksRequest,
  type CreateTaskRequest,
  type CreateTaskResult,
  type DeliveryOutcome,
  decodePageToken,
  encodePageToken,
  type ListDeliveriesQuery,
  type ListTasksPage,
  type ListTasksQuery,
  type Store,
  type StoredArtifact,
} from '../contract.ts'
import { openingEvents } from '../opening.ts'
import { SQLITE_MIGRATIONS } from './migrations.ts'

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  filename: string
  /** 'normal' survives a process crash (kill -9); 'full' also survives power loss. */
  synchronous?: 'normal' | 'full'
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

/** Quiet events (logs, artifacts) allowed after a snapshot before an append folds them into a new one. */
const SNAPSHOT_EVERY = 64

interface PendingWrite {
  body: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

interface DeliveryRow {
  id: string
  task_id: string
  seq: number
  config_id: string
  target: string
  event: string
  task: string
  state: DeliveryState
  attempts: number
  created_at: string
  next_attempt_at: number
  last_error: string | null
  delivered_at: string | null
}

interface EventRow {
  /** A JSON array of events, ascending and contiguous. */
  body: string
}

/** The events after `afterSeq` in rows of batches, in order, at most `limit`. */
const eventsOfRows = (
  rows: readonly EventRow[],
  afterSeq: number,
  limit = Number.POSITIVE_INFINITY,
): TaskEvent[] => {
  const events: TaskEvent[] = []
  for (const row of rows) {
    for (const event of JSON.parse(row.body) as TaskEvent[]) {
      if (event.seq <= afterSeq) continue
      events.push(event)
      if (events.length >= limit) return events
    }
  }
  return events
}

const visible = (row: { tenant: string; owner: string }, scope: Scope | undefined): boolean =>
  scope === undefined || (row.tenant === scope.tenant && row.owner === scope.owner)

const toDelivery = (row: DeliveryRow): Delivery => {
  const delivery: Delivery = {
    id: row.id,
    taskId: row.task_id,
    seq: row.seq,
    configId: row.config_id,
    target: JSON.parse(row.target) as PushTarget,
    event: JSON.parse(row.event) as TaskEvent,
    task: JSON.parse(row.task) as Task,
    state: row.state,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: new Date(row.next_attempt_at).toISOString(),
  }
  if (row.last_error !== null) delivery.lastError = row.last_error
  if (row.delivered_at !== null) delivery.deliveredAt = row.delivered_at
  return delivery
}

/**
 * The embedded store: one SQLite file in WAL mode, every statement prepared once. better-sqlite3
 * is synchronous, so each transaction runs without interleaving: the single writer is what makes
 * the compare-and-set and the claims race-free in one process. One process per database file.
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const
  readonly #db: Database.Database
  readonly #sql: ReturnType<typeof prepare>
  readonly #listStatements = new Map<string, Database.Statement>()
  /**
   * Runs a function in a transaction. better-sqlite3's `db.transaction()` builds several wrapper
   * functions on every call, which cost as much as a small statement; wrapping once and passing
   * the body as an argument keeps the same semantics (BEGIN, COMMIT, ROLLBACK on throw).
   */
  readonly #transaction: <T>(body: () => T) => T
  /** Writes waiting for the next group commit. */
  #pending: PendingWrite[] = []

  constructor(options: SqliteStoreOptions) {
    this.#db = new Database(options.filename)
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    this.#db.pragma('busy_timeout = 5000')
    migrate(this.#db)
    this.#sql = prepare(this.#db)
    const inTransaction = this.#db.transaction((body: () => unknown) => body())
    this.#transaction = <T>(body: () => T): T => inTransaction(body) as T
  }

  async init(): Promise<void> {
    // Migrations ran in the constructor: prepared statements need the schema.
  }

  async close(): Promise<void> {
    if (this.#pending.length > 0) this.#commitPending()
    if (this.#db.open) this.#db.close()
  }

  async ping(): Promise<void> {
    this.#sql.ping.get()
  }

  async createTask(request: CreateTaskRequest): Promise<CreateTaskResult> {
    return this.#write((): CreateTaskResult => {
      const { header, idempotencyKey } = request
      if (idempotencyKey !== undefined) {
        const existing = this.#sql.taskByIdempotencyKey.get(header.tenant, header.owner, idempotencyKey) as
          | { snapshot: string }
          | undefined
        if (existing)
          return { task: this.#current(existing.snapshot), events: [], created: false, leased: false }
      }
      const task = emptyTask(header)
      const events = openingEvents(request, nowIso())
      for (const event of events) applyEvent(task, event)
      const lease = request.lease
      this.#sql.insertTask.run(
        task.id,
        task.tenant,
        task.owner,
        task.agent,
        task.contextId,
        task.state,
        task.version,
        task.createdAt,
        task.statusAt,
        idempotencyKey ?? null,
        lease?.owner ?? null,
        lease ? Date.now() + lease.ttlMs : null,
        JSON.stringify(task),
      )
      this.#insertEvents(task.id, events)
      const configs = (request.pushTargets ?? []).map(
        (target): PushConfig => ({ id: newId(), taskId: task.id, createdAt: task.createdAt, target }),
      )
      for (const config of configs) this.#insertPushConfig(task, config)
      if (configs.length > 0) {
        // The opening status is a status change like any other: notify it with the task as created.
        const snapshot = JSON.stringify(task)
        for (const event of events) this.#enqueueDeliveries(configs, event, snapshot)
      }
      return { task, events, created: true, leased: lease !== undefined }
    })
  }

  /**
   * Log and artifact events change nothing but the log, so they are appended as event rows only:
   * a look at the task's state, no snapshot parsed or rewritten. Status changes and answers (and a
   * tail grown past SNAPSHOT_EVERY) fold the tail into a fresh snapshot, with a compare-and-set on
   * the row's version. Either way the task is exactly the fold of its log; readers fold the tail.
   */
  async append(request: AppendRequest): Promise<AppendResult> {
    return this.#write((): AppendResult => {
      const quietable =
        request.requestRun !== true &&
        request.releaseLease !== true &&
        request.events.every((e) => e.kind === 'log' || e.kind === 'artifact')
      const head = (quietable ? this.#sql.taskHead : this.#sql.taskHeadAndSnapshot).get(request.taskId) as
        | (TaskHead & { snapshot?: string })
        | undefined
      if (!head || !visible(head, request.scope)) {
        throw new SwitchboardError('TASK_NOT_FOUND', `no task ${request.taskId}`)
      }
      if (request.leaseOwner !== undefined && head.lease_owner !== request.leaseOwner) {
        throw new SwitchboardError('LEASE_LOST', `task ${request.taskId} is no longer leased to this runner`)
      }
      if (head.snapshot !== undefined) return this.#appendFolded(request, head, this.#current(head.snapshot))
      const last = (this.#sql.lastSeq.get(request.taskId) as { seq: number }).seq
      return last + request.events.length - head.version <= SNAPSHOT_EVERY
        ? this.#appendQuiet(request, head, last)
        : this.#appendFolded(request, head, this.#readTask(request.taskId)!)
    })
  }

  #appendQuiet(request: AppendRequest, head: TaskHead, last: number): AppendResult {
    assertNotTerminal(request.taskId, head.state)
    const at = nowIso()
    const events = request.events.map((body, i) => stampEvent(body, last + 1 + i, at))
    const configs = events.some((e) => e.kind === 'artifact') ? this.#pushConfigsOf(request.taskId) : []
    // Endpoints that hear of artifacts (A2A) get the task as it was at each one: fold it only then.
    const listened = configs.length > 0 && events.some((e) => configs.some((c) => notifies(c.target, e)))
    const task = listened ? this.#readTask(request.taskId) : undefined
    const owner = { id: request.taskId, tenant: head.tenant, owner: head.owner }
    this.#insertEvents(request.taskId, events)
    for (const event of events) {
      if (event.kind === 'artifact') this.#insertArtifact(owner, event.artifact, request.blobs)
      if (task) {
        applyEvent(task, event)
        this.#enqueueDeliveries(configs, event, JSON.stringify(task))
      }
    }
    // Callers seldom read the task after a log or an artifact: fold it only if one does.
    let folded = task
    const read = (): Task => {
      folded ??= this.#readTask(request.taskId)!
      return folded
    }
    return {
      events,
      get task() {
        return read()
      },
    }
  }

  #appendFolded(request: AppendRequest, head: TaskHead, task: Task): AppendResult {
    const at = nowIso()
    const configs = request.events.some((e) => e.kind === 'status' || e.kind === 'artifact')
      ? this.#pushConfigsOf(request.taskId)
      : []
    const events: TaskEvent[] = []
    for (const body of request.events) {
      const event = stampEvent(body, task.version + 1, at)
      applyEvent(task, event)
      events.push(event)
      if (event.kind === 'artifact') this.#insertArtifact(task, event.artifact, request.blobs)
      if (configs.length > 0) this.#enqueueDeliveries(configs, event, JSON.stringify(task))
    }
    this.#insertEvents(task.id, events)
    // A terminal state ends the need to run; an answer creates it; a released run leaves a task
    // that is still SUBMITTED or WORKING runnable (as releaseLease does); otherwise it is unchanged.
    const release = request.releaseLease === true && request.leaseOwner !== undefined ? 1 : 0
    const runPending = isTerminal(task.state)
      ? 0
      : request.requestRun
        ? 1
        : release
          ? Number(task.state === 'SUBMITTED' || task.state === 'WORKING')
          : null
    const updated = this.#sql.updateTask.run(
      task.state,
      task.version,
      task.statusAt,
      JSON.stringify(task),
      runPending,
      release,
      release,
      task.id,
      head.version,
    )
    if (updated.changes !== 1) {
      throw new SwitchboardError('INTERNAL', `concurrent modification of task ${task.id}`)
    }
    return { task, events }
  }

  /** The task now: its snapshot, with the quiet events appended since folded in. */
  #readTask(taskId: string): Task | undefined {
    const row = this.#sql.snapshotById.get(taskId) as { snapshot: string } | undefined
    return row ? this.#current(row.snapshot) : undefined
  }

  #current(snapshot: string): Task {
    const task = JSON.parse(snapshot) as Task
    // A terminal status is always folded into the snapshot, and nothing follows it.
    if (isTerminal(task.state)) return task
    const rows = this.#sql.eventsAfter.all(task.id, task.version) as EventRow[]
    for (const event of eventsOfRows(rows, task.version)) applyEvent(task, event)
    return task
  }

  async getTask(scope: Scope, taskId: string): Promise<Task | undefined> {
    const row = this.#sql.taskSnapshot.get(taskId, scope.tenant, scope.owner) as
      | { snapshot: string }
      | undefined
    return row ? this.#current(row.snapshot) : undefined
  }

  async listTasks(scope: Scope, query: ListTasksQuery): Promise<ListTasksPage> {
    const filters = ['tenant = @tenant', 'owner = @owner']
    const params: Record<string, unknown> = {
      tenant: scope.tenant,
      owner: scope.owner,
      limit: query.pageSize + 1,
    }
    if (query.agent !== undefined) {
      filters.push('agent = @agent')
      params.agent = query.agent
    }
    if (query.contextId !== undefined) {
      filters.push('context_id = @context_id')
      params.context_id = query.contextId
    }
    if (query.state !== undefined) {
      filters.push('state = @state')
      params.state = query.state
    }
    if (query.statusAfter !== undefined) {
      filters.push('status_at >= @status_after')
      params.status_after = query.statusAfter
    }
    const where = filters.join(' AND ')
    const total = this.#listStatement(`SELECT count(*) AS n FROM tasks WHERE ${where}`).get(params) as {
      n: number
    }
    let pageWhere = where
    if (query.pageToken) {
      const cursor = decodePageToken(query.pageToken)
      if (!cursor)
        throw new SwitchboardError('INVALID_REQUEST', 'pageToken is not a token this server issued')
      pageWhere += ' AND (status_at < @cursor_at OR (status_at = @cursor_at AND id < @cursor_id))'
      params.cursor_at = cursor.statusAt
      params.cursor_id = cursor.id
    }
    const rows = this.#listStatement(
      `SELECT snapshot FROM tasks WHERE ${pageWhere} ORDER BY status_at DESC, id DESC LIMIT @limit`,
    ).all(params) as { snapshot: string }[]
    const tasks = rows.slice(0, query.pageSize).map((r) => this.#current(r.snapshot))
    const last = tasks.at(-1)
    const nextPageToken = rows.length > query.pageSize && last ? encodePageToken(last.statusAt, last.id) : ''
    return { tasks, nextPageToken, totalSize: total.n }
  }

  async readEvents(taskId: string, afterSeq: number, limit = 1000): Promise<TaskEvent[]> {
    // Every row holds at least one event: `limit` rows hold at least `limit` events, if there are.
    const rows = this.#eventsPage(limit).all(taskId, afterSeq) as EventRow[]
    return eventsOfRows(rows, afterSeq, limit)
  }

  async getArtifact(scope: Scope, artifactId: string): Promise<StoredArtifact | undefined> {
    const row = this.#sql.artifact.get(artifactId) as
      | { meta: string; bytes: Buffer | null; tenant: string; owner: string }
      | undefined
    if (!row || !visible(row, scope)) return undefined
    const stored: StoredArtifact = { artifact: JSON.parse(row.meta) as Artifact }
    if (row.bytes !== null) stored.bytes = row.bytes
    return stored
  }

  async claimTasks(request: ClaimTasksRequest): Promise<ClaimedTask[]> {
    // Admission looks after every run, and tasks leased when created are seldom left to claim:
    // finding none (of any agent) needs no transaction.
    if (this.#sql.anyClaimable.get(Date.now()) === undefined) return []
    return this.#write((): ClaimedTask[] => {
      const now = Date.now()
      const rows = (
        request.agents
          ? this.#sql.claimableForAgents.all(now, JSON.stringify(request.agents), request.limit)
          : this.#sql.claimable.all(now, request.limit)
      ) as { id: string; snapshot: string; lease_owner: string | null }[]
      const expires = now + request.ttlMs
      return rows.map((row) => {
        this.#sql.takeLease.run(request.owner, expires, row.id)
        return { task: this.#current(row.snapshot), interrupted: row.lease_owner !== null }
      })
    })
  }

  async renewLeases(owner: string, taskIds: readonly string[], ttlMs: number): Promise<string[]> {
    if (taskIds.length === 0) return []
    return this.#write((): string[] => {
      const ids = JSON.stringify(taskIds)
      this.#sql.renewLeases.run(Date.now() + ttlMs, owner, ids)
      return (this.#sql.heldLeases.all(owner, ids) as { id: string }[]).map((r) => r.id)
    })
  }

  async releaseLease(owner: string, taskId: string): Promise<void> {
    await this.#write(() => this.#sql.releaseLease.run(taskId, owner))
  }

  async expireLeases(owner?: string): Promise<number> {
    const result = await this.#write(() =>
      owner === undefined ? this.#sql.expireAllLeases.run() : this.#sql.expireLeasesOf.run(owner),
    )
    return result.changes
  }

  async putPushConfig(scope: Scope, config: PushConfig): Promise<PushConfig> {
    return this.#write((): PushConfig => {
      const task = this.#sql.taskSnapshot.get(config.taskId, scope.tenant, scope.owner) as
        | { snapshot: string }
        | undefined
      if (!task) throw new SwitchboardError('TASK_NOT_FOUND', `no task ${config.taskId}`)
      this.#sql.deletePushConfig.run(config.taskId, config.id)
      this.#insertPushConfig({ tenant: scope.tenant, owner: scope.owner, id: config.taskId }, config)
      return config
    })
  }

  async getPushConfig(scope: Scope, taskId: string, configId: string): Promise<PushConfig | undefined> {
    const row = this.#sql.pushConfig.get(taskId, configId, scope.tenant, scope.owner) as
      | { created_at: string; target: string }
      | undefined
    return row
      ? { id: configId, taskId, createdAt: row.created_at, target: JSON.parse(row.target) }
      : undefined
  }

  async listPushConfigs(scope: Scope, taskId: string): Promise<PushConfig[]> {
    const rows = this.#sql.pushConfigsScoped.all(taskId, scope.tenant, scope.owner) as {
      id: string
      created_at: string
      target: string
    }[]
    return rows.map((r) => ({ id: r.id, taskId, createdAt: r.created_at, target: JSON.parse(r.target) }))
  }

  async deletePushConfig(scope: Scope, taskId: string, configId: string): Promise<boolean> {
    return this.#write((): boolean => {
      const existing = this.#sql.pushConfig.get(taskId, configId, scope.tenant, scope.owner)
      if (!existing) return false
      this.#sql.deletePushConfig.run(taskId, configId)
      this.#sql.dropPendingDeliveries.run(taskId, configId)
      return true
    })
  }

  async claimDeliveries(request: ClaimDeliveriesRequest): Promise<Delivery[]> {
    // The worker is woken after every status and artifact event, and the outbox is usually empty:
    // finding nothing due needs no transaction (claiming nothing is always a correct answer).
    if (this.#sql.anyDueDelivery.get(Date.now()) === undefined) return []
    return this.#write((): Delivery[] => {
      const now = Date.now()
      const rows = this.#sql.claimableDeliveries.all(now, now, request.limit) as DeliveryRow[]
      for (const row of rows) this.#sql.claimDelivery.run(request.owner, now + request.ttlMs, row.id)
      return rows.map(toDelivery)
    })
  }

  async settleDelivery(owner: string, deliveryId: string, outcome: DeliveryOutcome): Promise<void> {
    await this.#write(() => this.#settle(owner, deliveryId, outcome))
  }

  #settle(owner: string, deliveryId: string, outcome: DeliveryOutcome): void {
    switch (outcome.result) {
      case 'delivered':
        this.#sql.settleDelivery.run('delivered', null, Date.now(), nowIso(), deliveryId, owner)
        break
      case 'retry':
        this.#sql.settleDelivery.run(
          'pending',
          outcome.error,
          Date.parse(outcome.retryAt),
          null,
          deliveryId,
          owner,
        )
        break
      case 'dead':
        this.#sql.settleDelivery.run('dead', outcome.error, Date.now(), null, deliveryId, owner)
        break
    }
  }

  async listDeliveries(query: ListDeliveriesQuery): Promise<Delivery[]> {
    // better-sqlite3 binds numbered parameters (?1, ?2, ?3) by key, not by position.
    const rows = this.#sql.listDeliveries.all({
      1: query.state ?? null,
      2: query.taskId ?? null,
      3: query.limit,
    }) as DeliveryRow[]
    return rows.map(toDelivery)
  }

  async getDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const row = this.#sql.delivery.get(deliveryId) as DeliveryRow | undefined
    return row ? toDelivery(row) : undefined
  }

  async retryDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const result = await this.#write(() => this.#sql.retryDelivery.run(Date.now(), nowIso(), deliveryId))
    return result.changes === 1 ? this.getDelivery(deliveryId) : undefined
  }

  async countDeliveries(): Promise<Record<DeliveryState, number>> {
    const counts: Record<DeliveryState, number> = { pending: 0, delivered: 0, dead: 0 }
    for (const row of this.#sql.countDeliveries.all() as { state: DeliveryState; n: number }[])
      counts[row.state] = row.n
    return counts
  }

  /**
   * Group commit: every write issued in the same turn of the event loop, by any task, shares one
   * transaction, each in a savepoint of its own so a refused write (a terminal task, a lost lease)
   * rolls back alone. Nobody is answered before the COMMIT, so "acknowledged means durable" holds;
   * what is saved is the per-transaction cost (BEGIN, COMMIT, WAL frames of shared pages), which
   * dominated the write path under concurrency.
   */
  #write<T>(body: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ body, resolve: resolve as (value: unknown) => void, reject })
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending())
    })
  }

  #commitPending(): void {
    const batch = this.#pending
    this.#pending = []
    if (batch.length === 0) return
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
    try {
      this.#transaction(() => {
        for (const write of batch) {
          try {
            // Nested in the batch's transaction, better-sqlite3 runs this one in a savepoint.
            outcomes.push({ ok: true, value: this.#transaction(write.body) })
          } catch (error) {
            outcomes.push({ ok: false, error })
          }
        }
      })
    } catch (error) {
      for (const write of batch) write.reject(error)
      return
    }
    for (const [i, write] of batch.entries()) {
      const outcome = outcomes[i]!
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.error)
    }
  }

  #pushConfigsOf(taskId: string): PushConfig[] {
    const rows = this.#sql.pushConfigsOf.all(taskId) as { id: string; created_at: string; target: string }[]
    return rows.map((r) => ({ id: r.id, taskId, createdAt: r.created_at, target: JSON.parse(r.target) }))
  }

  #insertPushConfig(task: { tenant: string; owner: string; id: string }, config: PushConfig): void {
    this.#sql.insertPushConfig.run(
      task.id,
      config.id,
      task.tenant,
      task.owner,
      config.createdAt,
      JSON.stringify(config.target),
    )
  }

  #insertArtifact(
    task: Pick<Task, 'id' | 'tenant' | 'owner'>,
    artifact: Artifact,
    blobs: AppendRequest['blobs'],
  ): void {
    this.#sql.insertArtifact.run(artifact.id, task.id, task.tenant, task.owner, JSON.stringify(artifact))
    const bytes = blobs?.get(artifact.id)
    if (bytes !== undefined) this.#sql.insertArtifactBytes.run(artifact.id, bytes)
  }

  #enqueueDeliveries(configs: readonly PushConfig[], event: TaskEvent, taskJson: string): void {
    const eventJson = JSON.stringify(event)
    const now = Date.now()
    const createdAt = nowIso()
    for (const config of configs) {
      if (!notifies(config.target, event)) continue
      this.#sql.insertDelivery.run(
        newId(),
        config.taskId,
        event.seq,
        config.id,
        JSON.stringify(config.target),
        eventJson,
        taskJson,
        createdAt,
        now,
      )
    }
  }

  /**
   * The events of one append (or a task's opening pair) are one row, keyed by the last one's seq:
   * a run's batch costs one B-tree insert, not one per event. A reader asks for the rows ending
   * after its cursor and skips the events it has (eventsOfRows).
   */
  #insertEvents(taskId: string, events: readonly TaskEvent[]): void {
    const last = events.at(-1)
    if (last) this.#sql.insertEvent.run(taskId, last.seq, JSON.stringify(events))
  }

  /**
   * The page of event rows after a cursor, its size written into the SQL: with `LIMIT ?` SQLite spends
   * about 8 µs more on the same index seek (measured), and this runs for every stream and wait.
   */
  #eventsPage(limit: number): Database.Statement {
    const size = Number.isSafeInteger(limit) && limit > 0 ? limit : 1000
    return this.#listStatement(
      `SELECT body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ${size}`,
    )
  }

  #listStatement(sql: string): Database.Statement {
    let statement = this.#listStatements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#listStatements.set(sql, statement)
    }
    return statement
  }
}

const migrate = (db: Database.Database): void => {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  )
  const current =
    (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0
  if (current > SQLITE_MIGRATIONS.length) {
    throw new SwitchboardError(
      'INTERNAL',
      `the database schema is version ${current}, newer than this Switchboard knows (${SQLITE_MIGRATIONS.length}); upgrade Switchboard`,
    )
  }
  SQLITE_MIGRATIONS.forEach((sql, index) => {
    const version = index + 1
    if (version <= current) return
    db.transaction(() => {
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, nowIso())
      db.exec(sql)
    })()
  })
}

const prepare = (db: Database.Database) => ({
  ping: db.prepare('SELECT 1'),
  taskByIdempotencyKey: db.prepare(
    'SELECT snapshot FROM tasks WHERE tenant = ? AND owner = ? AND idempotency_key = ?',
  ),
  // Positional parameters throughout: binding by name costs a third more on these hot statements.
  insertTask: db.prepare(`INSERT INTO tasks
    (id, tenant, owner, agent, context_id, state, version, created_at, status_at, idempotency_key, run_pending, lease_owner, lease_expires_at, snapshot)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`),
  // The snapshot column is last in the row and not read: its overflow pages stay on disk.
  taskHead: db.prepare('SELECT state, tenant, owner, lease_owner, version FROM tasks WHERE id = ?'),
  taskHeadAndSnapshot: db.prepare(
    'SELECT state, tenant, owner, lease_owner, version, snapshot FROM tasks WHERE id = ?',
  ),
  snapshotById: db.prepare('SELECT snapshot FROM tasks WHERE id = ?'),
  lastSeq: db.prepare('SELECT max(seq) AS seq FROM events WHERE task_id = ?'),
  taskSnapshot: db.prepare('SELECT snapshot FROM tasks WHERE id = ? AND tenant = ? AND owner = ?'),
  // With @release the run's lease goes too, leaving the task as releaseLease would (see below).
  // better-sqlite3 binds no numbered parameter twice: the run_pending and lease columns are computed
  // by the caller (see #updateTask), and the version is compared as the compare-and-set.
  updateTask: db.prepare(`UPDATE tasks SET state = ?, version = ?, status_at = ?, snapshot = ?,
    run_pending = coalesce(?, run_pending),
    lease_owner = CASE WHEN ? = 1 THEN NULL ELSE lease_owner END,
    lease_expires_at = CASE WHEN ? = 1 THEN NULL ELSE lease_expires_at END
    WHERE id = ? AND version = ?`),
  insertEvent: db.prepare('INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)'),
  // `seq` is the last event's of the row (see #insertEvents). The tail after a snapshot is short,
  // since snapshots are refreshed every SNAPSHOT_EVERY events.
  eventsAfter: db.prepare('SELECT body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq'),
  insertArtifact: db.prepare(
    'INSERT INTO artifacts (id, task_id, tenant, owner, meta) VALUES (?, ?, ?, ?, ?)',
  ),
  insertArtifactBytes: db.prepare('INSERT INTO artifact_bytes (id, bytes) VALUES (?, ?)'),
  artifact: db.prepare(`SELECT a.meta, b.bytes, a.tenant, a.owner
    FROM artifacts a LEFT JOIN artifact_bytes b ON b.id = a.id WHERE a.id = ?`),
  claimable: db.prepare(`SELECT id, snapshot, lease_owner FROM tasks
    WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?)
    ORDER BY created_at LIMIT ?`),
  claimableForAgents: db.prepare(`SELECT id, snapshot, lease_owner FROM tasks
    WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?)
      AND agent IN (SELECT value FROM json_each(?))
    ORDER BY created_at LIMIT ?`),
  anyClaimable: db.prepare(
    'SELECT 1 FROM tasks WHERE run_pending = 1 AND (lease_owner IS NULL OR lease_expires_at < ?) LIMIT 1',
  ),
  takeLease: db.prepare('UPDATE tasks SET lease_owner = ?, lease_expires_at = ? WHERE id = ?'),
  renewLeases: db.prepare(
    'UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = ? AND id IN (SELECT value FROM json_each(?))',
  ),
  heldLeases: db.prepare(
    'SELECT id FROM tasks WHERE lease_owner = ? AND id IN (SELECT value FROM json_each(?))',
  ),
  // A run that ends while its task is SUBMITTED or WORKING (an answer arrived meanwhile, or the run
  // never started) leaves the task runnable; otherwise the task waits or is finished.
  releaseLease: db.prepare(`UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL,
    run_pending = CASE WHEN state IN ('SUBMITTED', 'WORKING') THEN 1 ELSE 0 END
    WHERE id = ? AND lease_owner = ?`),
  expireAllLeases: db.prepare('UPDATE tasks SET lease_expires_at = 0 WHERE lease_owner IS NOT NULL'),
  expireLeasesOf: db.prepare('UPDATE tasks SET lease_expires_at = 0 WHERE lease_owner = ?'),
  insertPushConfig: db.prepare(
    'INSERT INTO push_configs (task_id, id, tenant, owner, created_at, target) VALUES (?, ?, ?, ?, ?, ?)',
  ),
  pushConfig: db.prepare(
    'SELECT created_at, target FROM push_configs WHERE task_id = ? AND id = ? AND tenant = ? AND owner = ?',
  ),
  pushConfigsOf: db.prepare(
    'SELECT id, created_at, target FROM push_configs WHERE task_id = ? ORDER BY created_at, id',
  ),
  pushConfigsScoped: db.prepare(
    'SELECT id, created_at, target FROM push_configs WHERE task_id = ? AND tenant = ? AND owner = ? ORDER BY created_at, id',
  ),
  deletePushConfig: db.prepare('DELETE FROM push_configs WHERE task_id = ? AND id = ?'),
  dropPendingDeliveries: db.prepare(
    "DELETE FROM deliveries WHERE task_id = ? AND config_id = ? AND state = 'pending'",
  ),
  insertDelivery: db.prepare(`INSERT INTO deliveries
    (id, task_id, seq, config_id, target, event, task, state, attempts, created_at, next_attempt_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`),
  // Only the earliest pending delivery of each (task, config) is eligible: per-endpoint order.
  // INDEXED BY: left to itself the planner scans every pending row by state and sorts them all,
  // which makes each claim cost O(backlog); the due index yields rows in claim order and stops.
  claimableDeliveries: db.prepare(`SELECT d.* FROM deliveries d INDEXED BY deliveries_due
    WHERE d.state = 'pending' AND d.next_attempt_at <= ?
      AND (d.claim_owner IS NULL OR d.claim_expires_at < ?)
      AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.task_id = d.task_id AND e.config_id = d.config_id
                      AND e.state = 'pending' AND e.seq < d.seq)
    ORDER BY d.next_attempt_at, d.task_id, d.seq LIMIT ?`),
  anyDueDelivery: db.prepare(
    "SELECT 1 FROM deliveries INDEXED BY deliveries_due WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1",
  ),
  claimDelivery: db.prepare('UPDATE deliveries SET claim_owner = ?, claim_expires_at = ? WHERE id = ?'),
  settleDelivery: db.prepare(`UPDATE deliveries SET state = ?, attempts = attempts + 1, last_error = ?,
    next_attempt_at = ?, delivered_at = ?, claim_owner = NULL, claim_expires_at = NULL
    WHERE id = ? AND claim_owner = ?`),
  listDeliveries:
    db.prepare(`SELECT * FROM deliveries WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR task_id = ?2)
    ORDER BY created_at DESC, seq DESC LIMIT ?3`),
  delivery: db.prepare('SELECT * FROM deliveries WHERE id = ?'),
  retryDelivery:
    db.prepare(`UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, created_at = ?, last_error = NULL,
    claim_owner = NULL, claim_expires_at = NULL WHERE id = ? AND state = 'dead'`),
  countDeliveries: db.prepare('SELECT state, count(*) AS n FROM deliveries GROUP BY state'),
})
