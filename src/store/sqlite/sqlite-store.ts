import type Database from 'better-sqlite3'
import { SwitchboardError } from '../../model/errors.ts'
import type { TaskEvent } from '../../model/events.ts'
import type { Delivery, DeliveryState, PushConfig } from '../../model/push.ts'
import type { Scope, Task } from '../../model/task.ts'
import { nowIso } from '../../model/time.ts'
import type {
  ApiKey,
  AppendRequest,
  AppendResult,
  ClaimDeliveriesRequest,
  ClaimedTask,
  ClaimTasksRequest,
  CreateTaskRequest,
  CreateTaskResult,
  DeleteExpiredKeysRequest,
  DeleteExpiredTasksRequest,
  DeliveryOutcome,
  ListDeliveriesQuery,
  ListTasksPage,
  ListTasksQuery,
  NewApiKey,
  Store,
  StoredArtifact,
} from '../contract.ts'
import {
  type ApiKeyRow,
  type ArtifactRow,
  eventsOfRows,
  storedArtifactOf,
  toApiKey,
  toDelivery,
  toPushConfig,
  visible,
} from '../rows.ts'
import { type OnDemandIndex, onDemandIndexSql } from '../task-indexes.ts'
import { type ApiKeySql, apiKeySql } from './api-key-sql.ts'
import { Checkpointer } from './checkpointer.ts'
import { GroupCommit, openDatabase, type SqliteStoreOptions, StatementCache } from './db.ts'
import { type LeaseSql, leaseSql } from './lease-sql.ts'
import { listTasks } from './list-tasks.ts'
import { migrate } from './migrate.ts'
import { type PushSql, pushSql } from './push-sql.ts'
import { deleteExpiredTasks, type RetentionSql, retentionSql } from './retention-sql.ts'
import {
  currentTask,
  type SnapshotRow,
  type SqliteDeliveryRow,
  type SqliteEventRow,
  type SqlitePushConfigRow,
} from './rows.ts'
import { type TaskSql, taskSql } from './task-sql.ts'
import { appendEvents, createTask, insertPushConfig, type WriteContext } from './task-writes.ts'

export type { SqliteStoreOptions } from './db.ts'

/**
 * The embedded store: one SQLite file in WAL mode, every statement prepared once. better-sqlite3
 * is synchronous, so each transaction runs without interleaving: the single writer is what makes
 * the compare-and-set and the claims race-free in one process. One process per database file.
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const
  readonly #db: Database.Database
  readonly #tasks: TaskSql
  readonly #leases: LeaseSql
  readonly #push: PushSql
  readonly #apiKeys: ApiKeySql
  readonly #retention: RetentionSql
  readonly #statements: StatementCache
  readonly #writes: WriteContext
  readonly #commit: GroupCommit
  readonly #checkpointer: Checkpointer | undefined

  constructor(options: SqliteStoreOptions) {
    this.#db = openDatabase(options)
    migrate(this.#db)
    this.#tasks = taskSql(this.#db)
    this.#leases = leaseSql(this.#db)
    this.#push = pushSql(this.#db)
    this.#apiKeys = apiKeySql(this.#db)
    this.#retention = retentionSql(this.#db)
    this.#statements = new StatementCache(this.#db)
    this.#writes = { tasks: this.#tasks, push: this.#push }
    // An in-memory database has no WAL to copy.
    const checkpointer =
      options.filename === ':memory:' || options.filename === ''
        ? undefined
        : new Checkpointer(this.#db, {
            filename: options.filename,
            synchronous: options.synchronous === 'full' ? 'FULL' : 'NORMAL',
            ...(options.onCheckpointFailure && { onFailure: options.onCheckpointFailure }),
          })
    this.#checkpointer = checkpointer
    this.#commit = new GroupCommit(this.#db, {
      ...(options.tracer && { tracer: options.tracer }),
      ...(checkpointer && { committed: () => checkpointer.committed() }),
    })
  }

  async init(): Promise<void> {
    // Migrations ran in the constructor: prepared statements need the schema.
  }

  async close(): Promise<void> {
    this.#commit.flush()
    // The worker's connection first: the last connection to close checkpoints and removes the WAL.
    await this.#checkpointer?.stop()
    if (this.#db.open) this.#db.close()
  }

  async ping(): Promise<void> {
    this.#tasks.ping.get()
  }

  // ── tasks and events ──────────────────────────────────────────────────────

  createTask(request: CreateTaskRequest): Promise<CreateTaskResult> {
    return this.#commit.write('createTask', () => createTask(this.#writes, request))
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return this.#commit.write('append', () => appendEvents(this.#writes, request))
  }

  async getTask(scope: Scope, taskId: string): Promise<Task | undefined> {
    const row = this.#tasks.taskSnapshot.get(taskId, scope.tenant, scope.owner ?? null) as
      | SnapshotRow
      | undefined
    return row ? currentTask(row) : undefined
  }

  async prepareIndex(index: OnDemandIndex): Promise<void> {
    this.#db.exec(onDemandIndexSql(index, 'tasks'))
  }

  async countOpenTasks(scope: Scope): Promise<number> {
    return (this.#tasks.countOpen.get(scope.tenant, scope.owner) as { n: number }).n
  }

  async listTasks(scope: Scope, query: ListTasksQuery): Promise<ListTasksPage> {
    return listTasks({ statements: this.#statements }, scope, query)
  }

  async readEvents(taskId: string, afterSeq: number, limit = 1000): Promise<TaskEvent[]> {
    const size = Number.isSafeInteger(limit) && limit > 0 ? limit : 1000
    const rows = this.#tasks.eventsPage.all(taskId, afterSeq, size) as SqliteEventRow[]
    return eventsOfRows(rows, JSON.parse, afterSeq, limit)
  }

  async getArtifact(scope: Scope, artifactId: string): Promise<StoredArtifact | undefined> {
    const row = this.#tasks.artifact.get(artifactId) as ArtifactRow<string> | undefined
    return storedArtifactOf(row, artifactId, scope, JSON.parse)
  }

  // ── execution leases ──────────────────────────────────────────────────────

  async claimTasks(request: ClaimTasksRequest): Promise<ClaimedTask[]> {
    // Admission looks after every run, and tasks leased when created are seldom left to claim:
    // finding none (of any agent) needs no transaction.
    if (this.#leases.anyClaimable.get(Date.now()) === undefined) return []
    return this.#commit.write('claimTasks', (): ClaimedTask[] => {
      const now = Date.now()
      const rows = (
        request.agents
          ? this.#leases.claimableForAgents.all(now, JSON.stringify(request.agents), request.limit)
          : this.#leases.claimable.all(now, request.limit)
      ) as (SnapshotRow & { id: string; lease_owner: string | null })[]
      const expires = now + request.ttlMs
      return rows.map((row) => {
        this.#leases.takeLease.run(request.owner, expires, row.id)
        return { task: currentTask(row), interrupted: row.lease_owner !== null }
      })
    })
  }

  async renewLeases(owner: string, taskIds: readonly string[], ttlMs: number): Promise<string[]> {
    if (taskIds.length === 0) return []
    return this.#commit.write('renewLeases', (): string[] => {
      const ids = JSON.stringify(taskIds)
      this.#leases.renewLeases.run(Date.now() + ttlMs, owner, ids)
      return (this.#leases.heldLeases.all(owner, ids) as { id: string }[]).map((r) => r.id)
    })
  }

  async releaseLease(owner: string, taskId: string): Promise<void> {
    await this.#commit.write('releaseLease', () => this.#leases.releaseLease.run(taskId, owner))
  }

  async expireLeases(owner?: string): Promise<number> {
    const result = await this.#commit.write('expireLeases', () =>
      owner === undefined ? this.#leases.expireAllLeases.run() : this.#leases.expireLeasesOf.run(owner),
    )
    return result.changes
  }

  // ── push configs ──────────────────────────────────────────────────────────

  async putPushConfig(scope: Scope, config: PushConfig): Promise<PushConfig> {
    return this.#commit.write('putPushConfig', (): PushConfig => {
      const task = this.#tasks.taskHead.get(config.taskId) as { tenant: string; owner: string } | undefined
      if (!task || !visible(task, scope))
        throw new SwitchboardError('TASK_NOT_FOUND', `no task ${config.taskId}`)
      this.#push.deletePushConfig.run(config.taskId, config.id)
      // The config belongs to the task's owner, whoever in its tenant configured it.
      insertPushConfig(this.#writes, { tenant: task.tenant, owner: task.owner, id: config.taskId }, config)
      return config
    })
  }

  async getPushConfig(scope: Scope, taskId: string, configId: string): Promise<PushConfig | undefined> {
    const row = this.#push.pushConfig.get(taskId, configId, scope.tenant, scope.owner ?? null) as
      | SqlitePushConfigRow
      | undefined
    return row ? toPushConfig(taskId, row, JSON.parse) : undefined
  }

  async listPushConfigs(scope: Scope, taskId: string): Promise<PushConfig[]> {
    const rows = this.#push.pushConfigsScoped.all(
      taskId,
      scope.tenant,
      scope.owner ?? null,
    ) as SqlitePushConfigRow[]
    return rows.map((row) => toPushConfig(taskId, row, JSON.parse))
  }

  async deletePushConfig(scope: Scope, taskId: string, configId: string): Promise<boolean> {
    return this.#commit.write('deletePushConfig', (): boolean => {
      const existing = this.#push.pushConfig.get(taskId, configId, scope.tenant, scope.owner ?? null)
      if (!existing) return false
      this.#push.deletePushConfig.run(taskId, configId)
      this.#push.dropPendingDeliveries.run(taskId, configId)
      return true
    })
  }

  async deleteExpiredTasks(request: DeleteExpiredTasksRequest): Promise<number> {
    return this.#commit.write('deleteExpiredTasks', () => deleteExpiredTasks(this.#retention, request))
  }

  async deleteExpiredIdempotencyKeys(request: DeleteExpiredKeysRequest): Promise<number> {
    return this.#commit.write(
      'deleteExpiredIdempotencyKeys',
      () => this.#retention.deleteExpiredKeys.run(Date.now() - request.olderThanMs, request.limit).changes,
    )
  }

  // ── push outbox ───────────────────────────────────────────────────────────

  async claimDeliveries(request: ClaimDeliveriesRequest): Promise<Delivery[]> {
    // The worker is woken after every status and artifact event, and the outbox is usually empty:
    // finding nothing due needs no transaction (claiming nothing is always a correct answer).
    if (this.#push.anyDueDelivery.get(Date.now()) === undefined) return []
    return this.#commit.write('claimDeliveries', (): Delivery[] => {
      const now = Date.now()
      const rows = this.#push.claimableDeliveries.all(now, now, request.limit) as SqliteDeliveryRow[]
      for (const row of rows) this.#push.claimDelivery.run(request.owner, now + request.ttlMs, row.id)
      return rows.map((row) => toDelivery(row, JSON.parse))
    })
  }

  async settleDelivery(owner: string, deliveryId: string, outcome: DeliveryOutcome): Promise<void> {
    await this.#commit.write('settleDelivery', () => {
      const settle = this.#push.settleDelivery
      switch (outcome.result) {
        case 'delivered':
          settle.run('delivered', null, Date.now(), nowIso(), deliveryId, owner)
          break
        case 'retry':
          settle.run('pending', outcome.error, Date.parse(outcome.retryAt), null, deliveryId, owner)
          break
        case 'dead':
          settle.run('dead', outcome.error, Date.now(), null, deliveryId, owner)
          break
      }
    })
  }

  async listDeliveries(query: ListDeliveriesQuery): Promise<Delivery[]> {
    // better-sqlite3 binds numbered parameters (?1, ?2, ?3) by key, not by position.
    const rows = this.#push.listDeliveries.all({
      1: query.state ?? null,
      2: query.taskId ?? null,
      3: query.limit,
    }) as SqliteDeliveryRow[]
    return rows.map((row) => toDelivery(row, JSON.parse))
  }

  async getDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const row = this.#push.delivery.get(deliveryId) as SqliteDeliveryRow | undefined
    return row ? toDelivery(row, JSON.parse) : undefined
  }

  async retryDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const result = await this.#commit.write('retryDelivery', () =>
      this.#push.retryDelivery.run(Date.now(), nowIso(), deliveryId),
    )
    return result.changes === 1 ? this.getDelivery(deliveryId) : undefined
  }

  async countDeliveries(): Promise<Record<DeliveryState, number>> {
    const counts: Record<DeliveryState, number> = { pending: 0, delivered: 0, dead: 0 }
    for (const row of this.#push.countDeliveries.all() as { state: DeliveryState; n: number }[])
      counts[row.state] = row.n
    return counts
  }

  // ── API keys ──────────────────────────────────────────────────────────────

  async createApiKey(key: NewApiKey): Promise<void> {
    const { id, hash, principal, tenant, scopes, label, createdAt } = key
    await this.#commit.write('createApiKey', () =>
      this.#apiKeys.insertApiKey.run(
        id,
        hash,
        principal,
        tenant,
        JSON.stringify(scopes),
        label ?? null,
        createdAt,
      ),
    )
  }

  async findApiKey(hash: string): Promise<ApiKey | undefined> {
    const row = this.#apiKeys.activeApiKey.get(hash) as ApiKeyRow<string> | undefined
    return row ? toApiKey(row, JSON.parse) : undefined
  }

  async listApiKeys(): Promise<ApiKey[]> {
    return (this.#apiKeys.apiKeys.all() as ApiKeyRow<string>[]).map((row) => toApiKey(row, JSON.parse))
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const result = await this.#commit.write('revokeApiKey', () =>
      this.#apiKeys.revokeApiKey.run(nowIso(), id),
    )
    return result.changes === 1
  }
}
