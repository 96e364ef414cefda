import type { Tracer } from '@opentelemetry/api'
import pg from 'pg'
import { SwitchboardError } from '../../model/errors.ts'
import type { TaskEvent } from '../../model/events.ts'
import { newId } from '../../model/ids.ts'
import type { Delivery, DeliveryState, PushConfig } from '../../model/push.ts'
import type { Scope, Task } from '../../model/task.ts'
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
  type EventRow,
  eventsOfRows,
  storedArtifactOf,
  toApiKey,
  toDelivery,
  toPushConfig,
} from '../rows.ts'
import { type OnDemandIndex, onDemandIndexSql } from '../task-indexes.ts'
import { type ApiKeySql, apiKeySql } from './api-key-sql.ts'
import { batchSql } from './batch-sql.ts'
import { ms, quoteSchema, run, storeConnection } from './db.ts'
import { PgGroupCommit } from './group-commit.ts'
import { type LeaseSql, leaseSql } from './lease-sql.ts'
import { TaskLists } from './list-tasks.ts'
import { migrate } from './migrate.ts'
import { isReplicaTag } from './notify.ts'
import { type PushSql, pushSql } from './push-sql.ts'
import { type RetentionSql, retentionSql } from './retention-sql.ts'
import { type PgDeliveryRow, type PgPushConfigRow, parsed } from './rows.ts'
import { type TaskSql, taskSql } from './task-sql.ts'

export interface PostgresStoreOptions {
  connectionString: string
  /** The schema holding Switchboard's tables; created by init(). Default 'switchboard'. */
  schema?: string
  /** Connections in the pool. Default 10. */
  poolSize?: number
  /**
   * Names this replica in the notes its transactions send, so this replica's PostgresBus can skip
   * what it already delivered in-process. Give the bus the same tag. Default: a fresh id.
   */
  replicaTag?: string
  /** Traces each task write transaction as a `store.commit` span (docs/observability.md); absent, off. */
  tracer?: Tracer
}

/** A claim limit of "as many as there are" (admission passes Infinity) becomes no LIMIT. */
const limitOf = (limit: number): number | null => (Number.isFinite(limit) ? Math.max(0, limit) : null)

/**
 * The server store on PostgreSQL, for one or many replicas. Same semantics as the SQLite store;
 * where SQLite relies on its single writer, this one relies on row locks: appends lock the task
 * row (FOR NO KEY UPDATE), claims take rows with SKIP LOCKED, and every lease or claim time is the
 * database's clock. Transactions that commit events also NOTIFY, so buses on other replicas learn
 * of them exactly when they become visible.
 */
export class PostgresStore implements Store {
  readonly backend = 'postgres' as const
  readonly schema: string
  readonly replicaTag: string
  /** The most connections the pool opens. */
  readonly poolSize: number
  readonly #pool: pg.Pool
  readonly #tasks: TaskSql
  readonly #leases: LeaseSql
  readonly #push: PushSql
  readonly #apiKeys: ApiKeySql
  readonly #retention: RetentionSql
  readonly #lists: TaskLists
  readonly #writes: PgGroupCommit
  #closed = false

  constructor(options: PostgresStoreOptions) {
    this.schema = options.schema ?? 'switchboard'
    const s = quoteSchema(this.schema)
    this.replicaTag = options.replicaTag ?? newId()
    if (!isReplicaTag(this.replicaTag)) throw new TypeError(`invalid replica tag: ${this.replicaTag}`)
    this.poolSize = options.poolSize ?? 10
    if (!Number.isSafeInteger(this.poolSize) || this.poolSize < 1)
      throw new TypeError(`poolSize must be a whole number of at least 1, got ${options.poolSize}`)
    this.#pool = new pg.Pool({
      ...storeConnection(options.connectionString),
      max: this.poolSize,
      application_name: 'switchboard-store',
    })
    // An idle connection that dies (server restart, network) is dropped by the pool and replaced
    // on the next checkout; without a listener the 'error' event would crash the process.
    this.#pool.on('error', () => {})
    this.#tasks = taskSql(s)
    this.#leases = leaseSql(s)
    this.#push = pushSql(s)
    this.#apiKeys = apiKeySql(s)
    this.#retention = retentionSql(s)
    this.#lists = new TaskLists(this.#pool, s)
    this.#writes = new PgGroupCommit(
      { pool: this.#pool, sql: this.#tasks, replicaTag: this.replicaTag, tracer: options.tracer },
      batchSql(s),
    )
  }

  async init(): Promise<void> {
    await migrate(this.#pool, this.schema)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#pool.end()
  }

  async ping(): Promise<void> {
    await this.#pool.query('SELECT 1')
  }

  // ── tasks and events ──────────────────────────────────────────────────────

  createTask(request: CreateTaskRequest): Promise<CreateTaskResult> {
    return this.#writes.createTask(request)
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return this.#writes.append(request)
  }

  async getTask(scope: Scope, taskId: string): Promise<Task | undefined> {
    const { rows } = await run<{ snapshot: Task }>(this.#pool, this.#tasks.taskSnapshot, {
      task_id: taskId,
      tenant: scope.tenant,
      owner: scope.owner,
    })
    return rows[0]?.snapshot
  }

  /** CONCURRENTLY: enabling the cap on a large, busy table does not block its writes meanwhile. */
  async prepareIndex(index: OnDemandIndex): Promise<void> {
    try {
      await this.#pool.query(
        onDemandIndexSql(index, `${quoteSchema(this.schema)}.tasks`, { concurrently: true }),
      )
    } catch (error) {
      // Two replicas starting together: the other one's build won the name (duplicate table/key).
      const code = (error as { code?: string }).code
      if (code !== '42P07' && code !== '23505') throw error
    }
  }

  async countOpenTasks(scope: Scope): Promise<number> {
    const { rows } = await run<{ n: number }>(this.#pool, this.#tasks.countOpen, {
      tenant: scope.tenant,
      owner: scope.owner,
    })
    return rows[0]!.n
  }

  listTasks(scope: Scope, query: ListTasksQuery): Promise<ListTasksPage> {
    return this.#lists.list(scope, query)
  }

  async deleteExpiredTasks(request: DeleteExpiredTasksRequest): Promise<number> {
    const { rows } = await run<{ n: number }>(this.#pool, this.#retention.deleteExpiredTasks, {
      finished_before: request.finishedBefore,
      limit: request.limit,
    })
    return rows[0]!.n
  }

  async deleteExpiredIdempotencyKeys(request: DeleteExpiredKeysRequest): Promise<number> {
    const { rows } = await run<{ n: number }>(this.#pool, this.#retention.deleteExpiredKeys, {
      older_than_ms: request.olderThanMs,
      limit: request.limit,
    })
    return rows[0]!.n
  }

  async readEvents(taskId: string, afterSeq: number, limit = 1000): Promise<TaskEvent[]> {
    const { rows } = await run<EventRow<TaskEvent[]>>(this.#pool, this.#tasks.events, {
      task_id: taskId,
      after_seq: afterSeq,
      limit,
    })
    return eventsOfRows(rows, parsed, afterSeq, limit)
  }

  /** The version (last seq) of each of these tasks that exists. Unscoped, like readEvents. */
  async versionsOf(taskIds: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await run<{ id: string; version: number }>(this.#pool, this.#tasks.versions, {
      ids: [...taskIds],
    })
    return new Map(rows.map((r) => [r.id, r.version]))
  }

  async getArtifact(scope: Scope, artifactId: string): Promise<StoredArtifact | undefined> {
    const { rows } = await run<ArtifactRow<unknown>>(this.#pool, this.#tasks.artifact, { id: artifactId })
    return storedArtifactOf(rows[0], artifactId, scope, parsed)
  }

  // ── execution leases ──────────────────────────────────────────────────────

  async claimTasks(request: ClaimTasksRequest): Promise<ClaimedTask[]> {
    const { rows } = await run<{ snapshot: Task; interrupted: boolean }>(
      this.#pool,
      this.#leases.claimTasks,
      {
        owner: request.owner,
        limit: limitOf(request.limit),
        ttl_ms: ms(request.ttlMs),
        agents: request.agents ? [...request.agents] : null,
      },
    )
    return rows.map((r) => ({ task: r.snapshot, interrupted: r.interrupted }))
  }

  async renewLeases(owner: string, taskIds: readonly string[], ttlMs: number): Promise<string[]> {
    if (taskIds.length === 0) return []
    const { rows } = await run<{ id: string }>(this.#pool, this.#leases.renewLeases, {
      owner,
      ids: [...taskIds],
      ttl_ms: ms(ttlMs),
    })
    return rows.map((r) => r.id)
  }

  async releaseLease(owner: string, taskId: string): Promise<void> {
    await run(this.#pool, this.#leases.releaseLease, { task_id: taskId, owner })
  }

  async expireLeases(owner?: string): Promise<number> {
    const result =
      owner === undefined
        ? await run(this.#pool, this.#leases.expireAllLeases, {})
        : await run(this.#pool, this.#leases.expireLeasesOf, { owner })
    return result.rowCount ?? 0
  }

  // ── push configs ──────────────────────────────────────────────────────────

  async putPushConfig(scope: Scope, config: PushConfig): Promise<PushConfig> {
    const { rowCount } = await run(this.#pool, this.#push.putPushConfig, {
      task_id: config.taskId,
      id: config.id,
      tenant: scope.tenant,
      owner: scope.owner,
      created_at: config.createdAt,
      target: JSON.stringify(config.target),
    })
    if (rowCount !== 1) throw new SwitchboardError('TASK_NOT_FOUND', `no task ${config.taskId}`)
    return config
  }

  async getPushConfig(scope: Scope, taskId: string, configId: string): Promise<PushConfig | undefined> {
    const { rows } = await run<PgPushConfigRow>(this.#pool, this.#push.pushConfig, {
      task_id: taskId,
      id: configId,
      tenant: scope.tenant,
      owner: scope.owner,
    })
    const row = rows[0]
    return row ? toPushConfig(taskId, row, parsed) : undefined
  }

  async listPushConfigs(scope: Scope, taskId: string): Promise<PushConfig[]> {
    const { rows } = await run<PgPushConfigRow>(this.#pool, this.#push.pushConfigs, {
      task_id: taskId,
      tenant: scope.tenant,
      owner: scope.owner,
    })
    return rows.map((row) => toPushConfig(taskId, row, parsed))
  }

  async deletePushConfig(scope: Scope, taskId: string, configId: string): Promise<boolean> {
    const { rows } = await run<{ deleted: number }>(this.#pool, this.#push.deletePushConfig, {
      task_id: taskId,
      id: configId,
      tenant: scope.tenant,
      owner: scope.owner,
    })
    return (rows[0]?.deleted ?? 0) > 0
  }

  // ── push outbox ───────────────────────────────────────────────────────────

  async claimDeliveries(request: ClaimDeliveriesRequest): Promise<Delivery[]> {
    const { rows } = await run<PgDeliveryRow>(this.#pool, this.#push.claimDeliveries, {
      owner: request.owner,
      limit: limitOf(request.limit),
      ttl_ms: ms(request.ttlMs),
    })
    return rows.map((row) => toDelivery(row, parsed))
  }

  async settleDelivery(owner: string, deliveryId: string, outcome: DeliveryOutcome): Promise<void> {
    const settled =
      outcome.result === 'delivered'
        ? { state: 'delivered', error: null, retry_at: null }
        : outcome.result === 'retry'
          ? { state: 'pending', error: outcome.error, retry_at: outcome.retryAt }
          : { state: 'dead', error: outcome.error, retry_at: null }
    await run(this.#pool, this.#push.settleDelivery, { id: deliveryId, owner, ...settled })
  }

  async listDeliveries(query: ListDeliveriesQuery): Promise<Delivery[]> {
    const { rows } = await run<PgDeliveryRow>(this.#pool, this.#push.listDeliveries, {
      state: query.state ?? null,
      task_id: query.taskId ?? null,
      limit: query.limit,
    })
    return rows.map((row) => toDelivery(row, parsed))
  }

  async getDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const { rows } = await run<PgDeliveryRow>(this.#pool, this.#push.delivery, { id: deliveryId })
    const row = rows[0]
    return row ? toDelivery(row, parsed) : undefined
  }

  async retryDelivery(deliveryId: string): Promise<Delivery | undefined> {
    const { rows } = await run<PgDeliveryRow>(this.#pool, this.#push.retryDelivery, { id: deliveryId })
    const row = rows[0]
    return row ? toDelivery(row, parsed) : undefined
  }

  async countDeliveries(): Promise<Record<DeliveryState, number>> {
    const counts: Record<DeliveryState, number> = { pending: 0, delivered: 0, dead: 0 }
    const { rows } = await run<{ state: DeliveryState; n: number }>(
      this.#pool,
      this.#push.countDeliveries,
      {},
    )
    for (const row of rows) counts[row.state] = row.n
    return counts
  }

  // ── API keys ──────────────────────────────────────────────────────────────

  async createApiKey(key: NewApiKey): Promise<void> {
    await run(this.#pool, this.#apiKeys.insertApiKey, {
      id: key.id,
      hash: key.hash,
      principal: key.principal,
      tenant: key.tenant,
      scopes: JSON.stringify(key.scopes),
      label: key.label ?? null,
      created_at: key.createdAt,
    })
  }

  async findApiKey(hash: string): Promise<ApiKey | undefined> {
    const { rows } = await run<ApiKeyRow<unknown>>(this.#pool, this.#apiKeys.activeApiKey, { hash })
    const row = rows[0]
    return row ? toApiKey(row, parsed) : undefined
  }

  async listApiKeys(): Promise<ApiKey[]> {
    const { rows } = await run<ApiKeyRow<unknown>>(this.#pool, this.#apiKeys.apiKeys, {})
    return rows.map((row) => toApiKey(row, parsed))
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const { rowCount } = await run(this.#pool, this.#apiKeys.revokeApiKey, { id })
    return rowCount === 1
  }
}
