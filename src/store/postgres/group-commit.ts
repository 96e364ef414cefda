import type { SpanContext } from '@opentelemetry/api'
import type { Task } from '../../model/task.ts'
import { activeWriter, failCommitSpan, startCommitSpan } from '../commit-span.ts'
import type { AppendRequest, AppendResult, CreateTaskRequest, CreateTaskResult } from '../contract.ts'
import { visible } from '../rows.ts'
import { BatchRows } from './batch-rows.ts'
import type { BatchSql } from './batch-sql.ts'
import { run } from './db.ts'
import { KnownTasks } from './known-tasks.ts'
import {
  type AppendPlan,
  appendEvents,
  type CreatePlan,
  createTask,
  type KnownTask,
  planAppend,
  planCreate,
  type WriteContext,
} from './task-writes.ts'

/**
 * Batches committing at once. While they are in flight, new writes wait and go together in the
 * next one: the fewer round trips, the larger the batches under load.
 */
export const BATCHES_IN_FLIGHT = 2

/** Writes in one statement at most: bounds its parameters and how long it holds its row locks. */
export const BATCH_LIMIT = 256

interface Waiting<T> {
  writer: SpanContext | undefined
  resolve: (value: T) => void
  reject: (error: unknown) => void
}

interface PendingCreate extends Waiting<CreateTaskResult> {
  operation: 'createTask'
  plan: CreatePlan
}

interface PendingAppend extends Waiting<AppendResult> {
  operation: 'append'
  request: AppendRequest
}

type Pending = PendingCreate | PendingAppend

/** An append of the batch: folded onto the known row, with what the row must still be. */
interface FoldedAppend {
  write: PendingAppend
  plan: AppendPlan
  known: KnownTask
}

/**
 * Group commit on PostgreSQL: the task writes issued in one turn of the event loop, by any task,
 * are one statement (batch-sql.ts), so one round trip and one transaction. Appends are folded onto
 * the row as this store last knew it (KnownTasks; read once, unlocked, when unknown) and committed
 * with a compare-and-set; nobody is answered before the commit. Whatever the batch could not land
 * (a stale row, a held idempotency key, a failed statement) is redone alone on the locked path
 * (task-writes.ts), which decides it exactly as before.
 */
export class PgGroupCommit {
  readonly #ctx: WriteContext
  readonly #sql: BatchSql
  readonly #known = new KnownTasks()
  #pending: Pending[] = []
  #inFlight = 0
  /** Tasks with an append in a batch in flight: the next append of one is folded onto its result. */
  readonly #busy = new Set<string>()
  #scheduled = false

  constructor(ctx: WriteContext, sql: BatchSql) {
    this.#sql = sql
    this.#ctx = { ...ctx, written: (task, row) => this.#known.set(task, row) }
  }

  createTask(request: CreateTaskRequest): Promise<CreateTaskResult> {
    const plan = planCreate(request)
    return new Promise((resolve, reject) => {
      this.#enqueue({ operation: 'createTask', plan, writer: this.#writer(), resolve, reject })
    })
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    if (!this.#known.get(request.taskId)) await this.#learn(request.taskId)
    return new Promise((resolve, reject) => {
      this.#enqueue({ operation: 'append', request, writer: this.#writer(), resolve, reject })
    })
  }

  /** The writer's span, looked up only when tracing: the commit runs later, outside its context. */
  #writer(): SpanContext | undefined {
    return this.#ctx.tracer && activeWriter()
  }

  /** Reads an unknown task's row, unlocked; a missing one is left to the locked path to refuse. */
  async #learn(taskId: string): Promise<void> {
    const { rows } = await run<{
      snapshot: Task
      tenant: string
      owner: string
      configs: KnownTask['configs']
    }>(this.#ctx.pool, this.#ctx.sql.taskRow, { task_id: taskId })
    const row = rows[0]
    if (row) this.#known.set(row.snapshot, Object.assign({}, row, { snapshot: JSON.stringify(row.snapshot) }))
  }

  #enqueue(write: Pending): void {
    this.#pending.push(write)
    this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled || this.#pending.length === 0 || this.#inFlight >= BATCHES_IN_FLIGHT) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#flush()
    })
  }

  /**
   * Takes what may go in one statement: at most BATCH_LIMIT writes, one write per task (a second,
   * or one whose task is in a batch in flight, waits for a later batch, to be folded onto the
   * first) and one creation per idempotency key, all with one key window.
   */
  #flush(): void {
    const rows = new BatchRows(this.#ctx.replicaTag)
    const creates: PendingCreate[] = []
    const appends: FoldedAppend[] = []
    const deferred: Pending[] = []
    const tasks = new Set<string>()
    const keys = new Set<string>()
    let windowMs: number | undefined
    for (const write of this.#pending) {
      if (creates.length + appends.length === BATCH_LIMIT) {
        deferred.push(write)
        continue
      }
      if (write.operation === 'createTask') {
        const idempotency = write.plan.request.idempotency
        if (idempotency) {
          const key = `${write.plan.task.tenant}\n${write.plan.task.owner}\n${idempotency.key}`
          if (keys.has(key) || (windowMs !== undefined && windowMs !== idempotency.windowMs)) {
            deferred.push(write)
            continue
          }
          keys.add(key)
          windowMs = idempotency.windowMs
        }
        rows.addCreate(write.plan)
        creates.push(write)
        continue
      }
      const taskId = write.request.taskId
      if (tasks.has(taskId) || this.#busy.has(taskId)) {
        deferred.push(write)
        continue
      }
      const folded = this.#fold(write)
      if (!folded) continue
      tasks.add(taskId)
      appends.push(folded)
    }
    // In task id order, as a lease renewal's `id = ANY(...)` locks its rows: batches on several
    // replicas then lock what they share in one order, and never wait for each other in a cycle
    // (PostgreSQL would abort one of them after deadlock_timeout, a second of the writes' time).
    appends.sort((a, b) => (a.write.request.taskId < b.write.request.taskId ? -1 : 1))
    for (const { write, plan, known } of appends) rows.addAppend(plan, known, write.request.leaseOwner)
    this.#pending = deferred
    // What waits now waits for a batch in flight, whose end schedules the next flush.
    if (creates.length + appends.length === 0) return
    this.#inFlight += 1
    for (const taskId of tasks) this.#busy.add(taskId)
    void this.#commit(rows, windowMs, creates, appends).finally(() => {
      this.#inFlight -= 1
      for (const taskId of tasks) this.#busy.delete(taskId)
      this.#schedule()
    })
    // Past BATCH_LIMIT, the rest may go in a batch of its own alongside.
    this.#schedule()
  }

  /** The append folded onto its known row; undefined when it went to the locked path instead. */
  #fold(write: PendingAppend): FoldedAppend | undefined {
    const known = this.#known.get(write.request.taskId)
    try {
      // Out of scope or refused by the fold: the locked path answers with the row as it is now.
      if (!known || !visible(known, write.request.scope)) throw new Error('unknown')
      const plan = planAppend(JSON.parse(known.snapshot) as Task, known.configs, write.request)
      return { write, plan, known }
    } catch {
      this.#lockedAppend(write)
      return undefined
    }
  }

  async #commit(
    rows: BatchRows,
    windowMs: number | undefined,
    creates: readonly PendingCreate[],
    appends: readonly FoldedAppend[],
  ): Promise<void> {
    const span =
      this.#ctx.tracer &&
      startCommitSpan(this.#ctx.tracer, 'postgresql', [...creates, ...appends.map((a) => a.write)])
    let written: Set<string>
    try {
      // Added to the batch's own fresh object: spreading its 49 parameters again would copy them
      // a second time.
      const values = Object.assign(rows.values(), {
        window_ms: windowMs ?? 0,
        work_note: this.#ctx.replicaTag,
      })
      const { rows: result } = await run<{ written: string[] }>(
        this.#ctx.pool,
        this.#sql.commitBatch(rows.shape()),
        values,
      )
      written = new Set(result[0]!.written)
    } catch (error) {
      if (span) failCommitSpan(span, error)
      // Nothing of the batch landed: each write is redone alone, so one bad write fails only itself.
      written = new Set()
    } finally {
      span?.end()
    }
    for (const write of creates) {
      const { plan } = write
      if (!written.has(plan.task.id)) {
        createTask(this.#ctx, plan).then(write.resolve, write.reject)
        continue
      }
      const { task, snapshot, configs, events, request, outbox } = plan
      this.#known.set(task, { snapshot, tenant: task.tenant, owner: task.owner, configs })
      const leased = request.lease !== undefined
      write.resolve({ task, events, created: true, leased, ...(outbox.any && { outbox: true }) })
    }
    for (const { write, plan, known } of appends) {
      if (!written.has(write.request.taskId)) {
        this.#known.forget(write.request.taskId)
        this.#lockedAppend(write)
        continue
      }
      const configs = plan.added.length > 0 ? [...known.configs, ...plan.added] : known.configs
      // Not `{ ...known, … }`: on Node 20 a spread followed by more members is slow, and what the
      // copy holds outlives the young collections (bench/HISTORY.md, _What kept every request's objects_).
      this.#known.set(plan.task, Object.assign({}, known, { snapshot: plan.snapshot, configs }))
      write.resolve({ task: plan.task, events: plan.events, ...(plan.outbox.any && { outbox: true }) })
    }
  }

  #lockedAppend(write: PendingAppend): void {
    appendEvents(this.#ctx, write.request).then(write.resolve, (error: unknown) => {
      this.#known.forget(write.request.taskId)
      write.reject(error)
    })
  }
}
