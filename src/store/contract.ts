import type { Artifact } from '../model/artifacts.ts'
import type { EventBody, TaskEvent } from '../model/events.ts'
import type { Delivery, DeliveryState, PushConfig, PushTarget } from '../model/push.ts'
import type { TaskState } from '../model/states.ts'
import type { Scope, Task, TaskHeader } from '../model/task.ts'
import type { OnDemandIndex } from './task-indexes.ts'

/**
 * The store contract. One suite (test/store/contract.ts) runs against every backend.
 *
 * Concurrency rules every backend keeps:
 * - `append` is one transaction: read the task, check and fold each event with `applyEvent`
 *   (which refuses anything after a terminal state), insert the events with consecutive `seq`,
 *   update the task row with a compare-and-set on its version, insert the outbox rows the events
 *   trigger. Two racing appends never both succeed against the same version (the loser fails with
 *   VERSION_CONFLICT); a terminal state is written at most once.
 * - Writes from a runner pass `leaseOwner`: they fail with LEASE_LOST once another replica holds
 *   the task.
 * - Lease and delivery claims never hand the same row to two claimers (SKIP LOCKED on PostgreSQL,
 *   the single writer on SQLite).
 */
export interface Store {
  readonly backend: 'sqlite' | 'postgres' | 'memory'

  /** Applies pending migrations. Safe to call from several replicas at once. */
  init(): Promise<void>
  close(): Promise<void>
  /** Resolves when the database answers a trivial query (readiness); rejects when it cannot. */
  ping(): Promise<void>

  // ── tasks and events ──────────────────────────────────────────────────────
  /**
   * Creates a task with its opening events ([input, SUBMITTED]) and push configs in one
   * transaction. With `idempotency`, the key is looked up in the header's scope (tenant and
   * owner) first: a live key (recorded less than `windowMs` ago, its task still stored) with the
   * same fingerprint creates nothing and returns its task with `created: false`; with another
   * fingerprint, nothing is created and it throws IDEMPOTENCY_CONFLICT. A key that expired, or
   * whose task is gone, is taken over by the new task. Racing creations with one key create one task.
   */
  createTask(request: CreateTaskRequest): Promise<CreateTaskResult>

  /** Appends events atomically; see the rules above. Throws SwitchboardError. */
  append(request: AppendRequest): Promise<AppendResult>

  getTask(scope: Scope, taskId: string): Promise<Task | undefined>

  listTasks(scope: Scope, query: ListTasksQuery): Promise<ListTasksPage>

  /**
   * Makes a partial index that only some servers need: `open-tasks` makes `countOpenTasks` an
   * index read (a server with an open-task cap), `finished-tasks` lets retention find expired
   * tasks without a scan. An index costs every task write, so only a server that uses it makes
   * it, at start. Idempotent, and safe from several replicas at once.
   */
  prepareIndex(index: OnDemandIndex): Promise<void>

  /** How many of the scope's tasks are not terminal: what the open-task cap of a principal counts. */
  countOpenTasks(scope: Scope): Promise<number>

  /** Events with `seq > afterSeq`, ascending, at most `limit`. Unscoped: callers check access first. */
  readEvents(taskId: string, afterSeq: number, limit?: number): Promise<TaskEvent[]>

  /**
   * The artifact as recorded by its `artifact` event, with its file bytes, if the scope may see
   * its task. A streamed one is as it opened: its chunks are events only, and the task (the fold)
   * holds the text. The SQL stores keep no copy of the artifact beside the event: an artifact's row
   * is its task, its event's seq and its bytes.
   */
  getArtifact(scope: Scope, artifactId: string): Promise<StoredArtifact | undefined>

  /**
   * Retention: deletes up to `limit` terminal tasks whose final status is older than
   * `finishedBefore` (ISO time), oldest first, with their events, artifacts (and file bytes), push
   * configs and deliveries; returns how many tasks went. Never a task that is not terminal, nor one
   * with a delivery still pending: it goes once that delivery is delivered or dead. Safe from
   * several replicas at once (each batch skips the rows another one is deleting).
   */
  deleteExpiredTasks(request: DeleteExpiredTasksRequest): Promise<number>

  /**
   * Deletes up to `limit` idempotency keys recorded `olderThanMs` or longer ago (the window),
   * oldest first; returns how many went. Their tasks stay. Safe from several replicas at once.
   */
  deleteExpiredIdempotencyKeys(request: DeleteExpiredKeysRequest): Promise<number>
  // ── execution leases ──────────────────────────────────────────────────────
  /**
   * Claims up to `limit` tasks that need a run (`runPending`) and whose lease is free or expired,
   * oldest first, for `owner` until now + ttlMs. `interrupted` is true when the previous holder's
   * lease expired (it died mid-run) rather than being released.
   */
  claimTasks(request: ClaimTasksRequest): Promise<ClaimedTask[]>

  /** Extends the leases `owner` still holds; returns the ids it still holds. */
  renewLeases(owner: string, taskIds: readonly string[], ttlMs: number): Promise<string[]>

  /** Ends a run: frees the lease and clears `runPending` unless the run must happen again. */
  releaseLease(owner: string, taskId: string): Promise<void>

  /** Makes every lease claimable now: for a single-process store starting after a crash. */
  expireLeases(owner?: string): Promise<number>

  // ── push configs (A2A TaskPushNotificationConfig, Clawpedia notification_config) ──
  putPushConfig(scope: Scope, config: PushConfig): Promise<PushConfig>
  getPushConfig(scope: Scope, taskId: string, configId: string): Promise<PushConfig | undefined>
  listPushConfigs(scope: Scope, taskId: string): Promise<PushConfig[]>
  /** Returns whether a config was deleted. Pending deliveries to it are dropped. */
  deletePushConfig(scope: Scope, taskId: string, configId: string): Promise<boolean>

  // ── push outbox ───────────────────────────────────────────────────────────
  /**
   * Claims due pending deliveries for `owner` until now + ttlMs. Only the earliest pending
   * delivery of each (task, config) is eligible, so a later event never overtakes an earlier one.
   */
  claimDeliveries(request: ClaimDeliveriesRequest): Promise<Delivery[]>
  /** Records the outcome of an attempt by the claim holder; ignored if the claim was lost. */
  settleDelivery(owner: string, deliveryId: string, outcome: DeliveryOutcome): Promise<void>
  listDeliveries(query: ListDeliveriesQuery): Promise<Delivery[]>
  getDelivery(deliveryId: string): Promise<Delivery | undefined>
  /** Puts a dead delivery back to pending as if new: its attempt count and its age (createdAt) restart. */
  retryDelivery(deliveryId: string): Promise<Delivery | undefined>
  countDeliveries(): Promise<Record<DeliveryState, number>>

  // ── API keys (identity/api-keys.ts) ───────────────────────────────────────
  /** Stores a new key: its SHA-256 hash and what it grants, never the key itself. */
  createApiKey(key: NewApiKey): Promise<void>
  /** The key with this hash, unless it was revoked: one indexed read, on every request. */
  findApiKey(hash: string): Promise<ApiKey | undefined>
  /** Every key, revoked ones too (with `revokedAt`), oldest first; never their hashes. */
  listApiKeys(): Promise<ApiKey[]>
  /** Revokes a key for good; returns whether it exists. A second revocation keeps the first time. */
  revokeApiKey(id: string): Promise<boolean>
}

/** An API key as the store lists it: what it grants, without its hash. */
export interface ApiKey {
  id: string
  principal: string
  tenant: string
  scopes: string[]
  label?: string
  createdAt: string
  revokedAt?: string
}

export interface NewApiKey extends Omit<ApiKey, 'revokedAt'> {
  /** SHA-256 of the whole key, hex. */
  hash: string
}

export interface CreateTaskRequest {
  header: TaskHeader
  input: Record<string, unknown>
  text?: string
  message?: import('../model/parts.ts').Message
  idempotency?: IdempotencyKey
  pushTargets?: PushTarget[]
  /** Claim the new task for this runner in the same transaction (saves a round trip). */
  lease?: { owner: string; ttlMs: number }
}

/**
 * A creation's deduplication: `key` is unique per tenant and owner; `fingerprint` says what the
 * request was, so a reuse of the key for another request is told apart from a retry. Keys
 * recorded before fingerprints existed have none, and match any request.
 */
export interface IdempotencyKey {
  key: string
  fingerprint: string
  /** How long after it was recorded the key still dedupes (the store's clock decides). */
  windowMs: number
}

export interface CreateTaskResult {
  task: Task
  events: TaskEvent[]
  created: boolean
  /** True when `lease` was requested and granted. */
  leased: boolean
  /** True when the write enqueued push deliveries: the push worker has rows to claim. */
  outbox?: boolean
}

export interface AppendRequest {
  taskId: string
  /** When set, the task must be visible in this scope. */
  scope?: Scope
  events: EventBody[]
  /** File bytes for artifact events, keyed by artifact id. */
  blobs?: ReadonlyMap<string, Uint8Array>
  /** When set, the append fails with LEASE_LOST unless this owner holds the lease. */
  leaseOwner?: string
  /** Marks the task as needing a run (an answer arrived). */
  requestRun?: boolean
  /**
   * The run ends with this write (its outcome): the lease held by `leaseOwner` is released in the
   * same transaction, exactly as `releaseLease` would, saving a write per run.
   */
  releaseLease?: boolean
  /**
   * New push configs for the task, inserted in the same transaction (an A2A follow-up message
   * that carries one): they are notified of this append's events like the configs already there.
   */
  pushTargets?: PushTarget[]
}

export interface AppendResult {
  task: Task
  events: TaskEvent[]
  /** True when the write enqueued push deliveries: the push worker has rows to claim. */
  outbox?: boolean
}

export interface ListTasksQuery {
  agent?: string
  contextId?: string
  state?: TaskState
  /** Only tasks whose status timestamp is at or after this ISO time. */
  statusAfter?: string
  pageSize: number
  pageToken?: string
}

export interface ListTasksPage {
  tasks: Task[]
  nextPageToken: string
  totalSize: number
}

export interface DeleteExpiredTasksRequest {
  finishedBefore: string
  limit: number
}

export interface DeleteExpiredKeysRequest {
  olderThanMs: number
  limit: number
}

export interface StoredArtifact {
  artifact: Artifact
  /** The file's bytes, for `file` artifacts. */
  bytes?: Uint8Array
}

export interface ClaimTasksRequest {
  owner: string
  limit: number
  ttlMs: number
  /** Only tasks of these agents (agents with free capacity). Absent: any. */
  agents?: readonly string[]
}

export interface ClaimedTask {
  task: Task
  interrupted: boolean
}

export interface ClaimDeliveriesRequest {
  owner: string
  limit: number
  ttlMs: number
}

export type DeliveryOutcome =
  | { result: 'delivered' }
  | { result: 'retry'; error: string; retryAt: string }
  | { result: 'dead'; error: string }

export interface ListDeliveriesQuery {
  state?: DeliveryState
  taskId?: string
  limit: number
}

/** A page token is the position of the last task of the page in (statusAt desc, id desc) order. */
export const encodePageToken = (statusAt: string, id: string): string =>
  Buffer.from(JSON.stringify([statusAt, id])).toString('base64url')

export const decodePageToken = (token: string): { statusAt: string; id: string } | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    ) {
      return { statusAt: value[0], id: value[1] }
    }
  } catch {
    // fall through: an unreadable token is simply invalid
  }
  return undefined
}
