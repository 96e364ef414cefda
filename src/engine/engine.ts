import { trace } from '@opentelemetry/api'
import type { FileFetcher } from '../agent/context.ts'
import type { AgentDefinition } from '../agent/define.ts'
import type { EventBus } from '../events/contract.ts'
import { type CallerIdentity, scopeOf } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { JsonObject } from '../model/events.ts'
import { fold, headerOf } from '../model/fold.ts'
import { newId } from '../model/ids.ts'
import type { Message, Metadata } from '../model/parts.ts'
import type { PushConfig, PushTarget } from '../model/push.ts'
import { INTERRUPTED_STATES, isTerminal, type TaskState } from '../model/states.ts'
import type { Scope, Task } from '../model/task.ts'
import { nowIso } from '../model/time.ts'
import { compileSchema } from '../schema/json-schema.ts'
import type { ListTasksPage, ListTasksQuery, Store, StoredArtifact } from '../store/contract.ts'
import { Admission } from './admission.ts'
import { readArtifact } from './artifact-content.ts'
import type { CallerSignal } from './caller-signal.ts'
import type { CommittedWrite } from './committed.ts'
import { Deliveries } from './deliveries.ts'
import { TaskFollower, taskAt } from './follow.ts'
import { type Idempotency, storedKey } from './idempotency.ts'
import { answerInput, resolveInput } from './input.ts'
import { type EngineLogger, silentLogger } from './logger.ts'
import { checkOpenTasks } from './open-tasks.ts'
import type { AgentRegistry } from './registry.ts'
import { newTaskHeader } from './task-header.ts'
import { waitForState } from './wait.ts'
import { TaskWatch, withWatch } from './watch.ts'

export interface EngineOptions {
  store: Store
  bus: EventBus
  agents: AgentRegistry
  /** This replica's identity: the owner of its leases. */
  replicaId?: string
  /** Tasks this replica runs at once (all agents). */
  concurrency?: number
  leaseMs?: number
  /** How often admission looks for runnable tasks nobody announced (expired leases). */
  pollMs?: number
  shutdownGraceMs?: number
  /** One process owns the store (SQLite): every lease left behind is expired at start. */
  singleProcess?: boolean
  /** How handlers download files (`ctx.fetchFile`): the server passes its SSRF-guarded fetcher. */
  fetchFile?: FileFetcher
  /** What one task's artifacts may take in all; default LIMITS.taskArtifactBytes (256 MiB). */
  taskArtifactBytes?: number
  /** Files up to this size keep their bytes inline (A2A: a `raw` part); default LIMITS.inlineFileBytes. */
  inlineFileBytes?: number
  /** Called when the push outbox may have new due rows (status or artifact events, a retried delivery). */
  onOutboxWrite?: () => void
  /** Where every task of an agent notifies besides the targets its request names (deployment configuration). */
  defaultPushTargets?: (agent: AgentDefinition) => PushTarget[]
  /** How long an idempotency key dedupes; default LIMITS.idempotencyWindowMs (24 h). */
  idempotencyWindowMs?: number
  /** The most non-terminal tasks one principal (tenant and owner) may hold; a creation beyond it is RATE_LIMITED. */
  maxOpenTasks?: number
  logger?: EngineLogger
}

/**
 * Who is asking: a tenant and owner (every store query is scoped by them; no owner: every task of
 * the tenant, for a caller with a tenant-wide scope) and, when the request came in under one
 * agent's base URL, that agent: tasks of other agents are then not found.
 */
export interface Caller extends Scope {
  agent?: string
}

export interface SubmitRequest {
  /** Who creates the task: it belongs to the caller's tenant and principal, and its handler sees it as `ctx.caller`. */
  caller: CallerIdentity
  agent: string
  /** The input object; when absent, derived from `text` by the agent's `fromText`, else `{}`. */
  input?: JsonObject
  text?: string
  message?: Message
  contextId?: string
  /** Same key, same caller, within the window: the same task; another request under it: IDEMPOTENCY_CONFLICT. */
  idempotency?: Idempotency
  pushTargets?: PushTarget[]
  metadata?: Metadata
  /** The A2A extensions the request activated: recorded with the task, `ctx.extensions` on every run. */
  extensions?: string[]
  /** A TaskWatch on the new task, opened before it is created, for waitFor or followTask (watch.ts). */
  watch?: { signal?: CallerSignal }
}

export interface InputRequest {
  scope: Caller
  taskId: string
  input?: JsonObject
  text?: string
  message?: Message
  /** Push targets added to the task in the transaction that records the answer (A2A's inline config). */
  pushTargets?: PushTarget[]
  /** The task as the caller just read it in this scope: spares reading it again. */
  known?: Task
}

/**
 * The protocol-neutral task engine: everything a dialect can ask for. Dialects translate wire
 * requests into these calls and the results back; no rule of the task lifecycle lives anywhere else.
 */
export class Engine {
  readonly replicaId: string
  readonly #store: Store
  readonly #bus: EventBus
  readonly #agents: AgentRegistry
  readonly #admission: Admission
  /** The push outbox, for the admin API. */
  readonly deliveries: Deliveries
  readonly #options: EngineOptions
  readonly #logger: EngineLogger
  #unsubscribeWork: (() => void) | undefined

  constructor(options: EngineOptions) {
    this.#options = options
    this.#store = options.store
    this.#bus = options.bus
    this.#agents = options.agents
    this.#logger = options.logger ?? silentLogger
    this.replicaId = options.replicaId ?? `replica-${newId()}`
    this.deliveries = new Deliveries(options.store, options.onOutboxWrite)
    this.#admission = new Admission({
      store: options.store,
      bus: options.bus,
      agents: options.agents,
      owner: this.replicaId,
      concurrency: options.concurrency ?? 64,
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1_000,
      shutdownGraceMs: options.shutdownGraceMs ?? 5_000,
      committed: (taskId, write) => this.#committed(taskId, write),
      fetchFile: options.fetchFile ?? refuseFetch,
      taskArtifactBytes: options.taskArtifactBytes,
      inlineFileBytes: options.inlineFileBytes,
      logger: this.#logger,
      resumeReason: options.singleProcess ? 'restart' : 'takeover',
    })
  }

  get agents(): AgentRegistry {
    return this.#agents
  }

  get store(): Store {
    return this.#store
  }

  /** Recovers what a previous process left behind, then starts admitting tasks. */
  async start(): Promise<void> {
    if (this.#options.singleProcess) {
      const expired = await this.#store.expireLeases()
      if (expired > 0) this.#logger.warn({ expired }, 'recovering tasks left running by a previous process')
    }
    if (this.#options.maxOpenTasks !== undefined) await this.#store.prepareIndex('open-tasks')
    this.#unsubscribeWork = this.#bus.onWork(() => void this.#admission.pump())
    this.#admission.start()
  }

  async stop(): Promise<void> {
    this.#unsubscribeWork?.()
    await this.#admission.stop()
  }

  /** Tasks currently running on this replica. */
  get runningCount(): number {
    return this.#admission.running
  }

  async submit(request: SubmitRequest): Promise<{ task: Task; created: boolean; watch?: TaskWatch }> {
    const agent = this.#agents.get(request.agent)
    const { definition } = agent
    const input = resolveInput(agent, request.input, request.text, agent.validateInput, '/input')
    const defaults = this.#options.defaultPushTargets?.(definition) ?? []
    const pushTargets = request.pushTargets ? [...defaults, ...request.pushTargets] : defaults
    const cap = this.#options.maxOpenTasks
    if (cap !== undefined) await checkOpenTasks(this.#store, scopeOf(request.caller), cap)
    const header = newTaskHeader(request, definition.slug)
    const watch = request.watch && new TaskWatch(this.#bus, header.id, request.watch.signal)
    const reserved = this.#admission.reserve(definition.slug)
    const askedAt = performance.now()
    let result: Awaited<ReturnType<Store['createTask']>>
    try {
      result = await this.#store.createTask({
        header,
        input,
        ...(request.text !== undefined && { text: request.text }),
        ...(request.message && { message: request.message }),
        ...(request.idempotency && {
          idempotency: storedKey(request.idempotency, definition.slug, this.#options.idempotencyWindowMs),
        }),
        pushTargets,
        ...(reserved && { lease: { owner: this.replicaId, ttlMs: this.#options.leaseMs ?? 30_000 } }),
      })
    } catch (error) {
      if (reserved) this.#admission.unreserve(definition.slug)
      watch?.close()
      throw error
    }
    if (reserved && !result.leased) this.#admission.unreserve(definition.slug)
    if (!result.created) {
      watch?.close()
      return { task: result.task, created: false }
    }
    // The creation's events only: the task object is the caller's, and may be folded on (a stream).
    this.#committed(result.task.id, { events: result.events, outbox: result.outbox === true })
    // The run reads its own copy of the task: the caller's may be folded on (a stream).
    const own = fold(headerOf(result.task), result.events)
    if (result.leased) this.#admission.run({ task: own, interrupted: false }, askedAt)
    else this.#bus.announceWork()
    return { task: result.task, created: true, ...(watch && { watch }) }
  }

  /** Answers the agent's question: the task resumes (WORKING) and its handler runs again with the answer. */
  async provideInput(request: InputRequest): Promise<Task> {
    const task = request.known ?? (await this.getTask(request.scope, request.taskId))
    if (isTerminal(task.state)) {
      throw new SwitchboardError(
        'TASK_TERMINAL',
        `task ${task.id} is ${task.state} and takes no more input`,
        {
          state: task.state,
        },
      )
    }
    if (!INTERRUPTED_STATES.has(task.state)) {
      throw new SwitchboardError(
        'TASK_NOT_AWAITING_INPUT',
        `task ${task.id} is ${task.state}, not waiting for input`,
        {
          state: task.state,
        },
      )
    }
    const agent = this.#agents.get(task.agent)
    const validate = task.inputSchema ? compileSchema(task.inputSchema) : agent.validateInput
    const fromText = task.inputSchema ? undefined : agent
    const input = resolveInput(fromText, answerInput(request, task), request.text, validate, '/input')
    const appended = await this.#store.append({
      taskId: task.id,
      scope: request.scope,
      events: [
        {
          kind: 'input',
          input,
          ...(request.text !== undefined && { text: request.text }),
          ...(request.message && { message: request.message }),
        },
        { kind: 'status', state: 'WORKING' },
      ],
      requestRun: true,
      ...(request.pushTargets && { pushTargets: request.pushTargets }),
    })
    this.#committed(task.id, appended)
    this.#bus.announceWork()
    // Listeners share the published task and never change it; the caller may fold a stream into its own.
    return structuredClone(appended.task)
  }

  /** Cancels a task that is not terminal; the handler's signal aborts wherever it runs. */
  async cancel(scope: Caller, taskId: string): Promise<Task> {
    if (scope.agent !== undefined) await this.getTask(scope, taskId)
    try {
      const appended = await this.#store.append({
        taskId,
        scope,
        events: [{ kind: 'status', state: 'CANCELLED' }],
      })
      this.#committed(taskId, appended)
      return appended.task
    } catch (error) {
      if (error instanceof SwitchboardError && error.code === 'TASK_TERMINAL') {
        throw new SwitchboardError(
          'TASK_NOT_CANCELABLE',
          `task ${taskId} is ${String(error.details?.state)} and cannot be cancelled`,
          {
            state: error.details?.state,
          },
        )
      }
      throw error
    }
  }

  async getTask(scope: Caller, taskId: string): Promise<Task> {
    const task = await this.#store.getTask(scope, taskId)
    if (!task || (scope.agent !== undefined && task.agent !== scope.agent)) {
      throw new SwitchboardError('TASK_NOT_FOUND', `no task ${taskId}`)
    }
    return task
  }

  listTasks(scope: Caller, query: ListTasksQuery): Promise<ListTasksPage> {
    return this.#store.listTasks(
      scope,
      scope.agent === undefined ? query : Object.assign({}, query, { agent: scope.agent }),
    )
  }

  /**
   * Every event of the task after `afterSeq`, live, each with the task as it stood at that event,
   * ending after the terminal status. `known`: the task as the caller just read it in this scope,
   * which spares reading it again; the stream folds on into it when it already is at the cursor
   * (else into the fold of the log up to the cursor), so the caller hands it over.
   */
  async followTask(
    scope: Caller,
    taskId: string,
    options: { afterSeq: number; signal?: CallerSignal; known?: Task; watch?: TaskWatch },
  ): Promise<TaskFollower> {
    const known = options.known?.id === taskId ? options.known : await this.getTask(scope, taskId)
    const task = await taskAt(this.#store, known, options.afterSeq)
    return new TaskFollower({
      store: this.#store,
      bus: this.#bus,
      task,
      afterSeq: options.afterSeq,
      ...(options.signal && { signal: options.signal }),
      ...withWatch(options.watch, task, options.known),
    })
  }

  /**
   * The task once its state satisfies `until` or is terminal (it will not change again), or when
   * the signal aborts (as it is then). A state that satisfied `until` only within one committed
   * batch may be seen as the state after it. `known`: the task as the caller just had it (a
   * submit's answer), which spares a read; with the `watch` that submit opened, none is needed.
   */
  waitFor(
    scope: Caller,
    taskId: string,
    until: (state: TaskState) => boolean,
    options: { signal?: CallerSignal; known?: Task; watch?: TaskWatch } = {},
  ): Promise<Task> {
    const { watch, ...rest } = options
    return waitForState({
      store: this.#store,
      bus: this.#bus,
      taskId,
      read: () => this.getTask(scope, taskId),
      until,
      ...rest,
      ...withWatch(watch, rest.known, rest.known),
    })
  }

  async getArtifact(scope: Caller, artifactId: string): Promise<StoredArtifact> {
    const stored = await readArtifact(this.#store, scope, artifactId)
    if (!stored) throw new SwitchboardError('ARTIFACT_NOT_FOUND', `no artifact ${artifactId}`)
    return stored
  }

  // ── push configs ───────────────────────────────────────────────────────────
  createPushConfig(
    scope: Scope,
    taskId: string,
    target: PushTarget,
    id: string = newId(),
  ): Promise<PushConfig> {
    return this.#store.putPushConfig(scope, { id, taskId, createdAt: nowIso(), target })
  }

  async getPushConfig(scope: Caller, taskId: string, configId: string): Promise<PushConfig> {
    await this.getTask(scope, taskId)
    const config = await this.#store.getPushConfig(scope, taskId, configId)
    if (!config)
      throw new SwitchboardError('PUSH_CONFIG_NOT_FOUND', `no push config ${configId} on task ${taskId}`)
    return config
  }

  async listPushConfigs(scope: Caller, taskId: string): Promise<PushConfig[]> {
    await this.getTask(scope, taskId)
    return this.#store.listPushConfigs(scope, taskId)
  }

  /** Idempotent: deleting a config that is already gone succeeds (the task must exist). */
  async deletePushConfig(scope: Caller, taskId: string, configId: string): Promise<void> {
    await this.getTask(scope, taskId)
    await this.#store.deletePushConfig(scope, taskId, configId)
  }

  #committed(taskId: string, { events, task, outbox }: CommittedWrite): void {
    this.#bus.publish(taskId, events, task)
    // Each state change is an event of the active span (the request's or the run's); none when off.
    const span = trace.getActiveSpan()
    if (span?.isRecording())
      for (const e of events)
        if (e.kind === 'status')
          span.addEvent('task.status', { 'switchboard.task.id': taskId, 'switchboard.task.state': e.state })
    if (outbox) this.#options.onOutboxWrite?.()
  }
}

const refuseFetch: FileFetcher = async (url) => {
  throw new SwitchboardError('URL_NOT_ALLOWED', `no outbound fetcher is configured; cannot download ${url}`)
}
