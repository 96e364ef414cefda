import type { EngineLogger } from '../engine/logger.ts'
import { resumeOf } from '../engine/resume.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import { TransientMap } from '../model/transient-map.ts'
import type { SwitchboardMetrics } from '../observability/metrics.ts'
import { type EventReader, recordTaskSpan } from '../observability/task-span.ts'
import type { Tracer } from '../observability/tracing.ts'
import type { Store } from '../store/contract.ts'

interface Tracked {
  agent: string
  state: 'waiting' | 'running'
  createdAt: number
  /** Whether the time to its first event was observed (or the task had started before we saw it). */
  reported: boolean
}

/**
 * The tasks this replica runs (`running`: it holds the lease) or will run (`waiting`: it needs a
 * run and none holds it), for the open-tasks gauge, the time to first event and the agent on
 * engine lines. Bounded: a running entry goes when the run ends (lease released, lost, or a
 * terminal state), so there are at most the engine's concurrency of them. Waiting entries are
 * kept only when this process runs every task (`trackWaiting`, a single-process store): with
 * replicas, another one may claim the task and this one would never see it leave.
 */
export class OpenTaskTally {
  readonly #tasks = new TransientMap<string, Tracked>()
  readonly #trackWaiting: boolean

  constructor(options: { trackWaiting: boolean }) {
    this.#trackWaiting = options.trackWaiting
  }

  get(taskId: string): Tracked | undefined {
    return this.#tasks.get(taskId)
  }

  /** A task created here, or given an answer (it needs a run again). */
  needsRun(task: Task, leased: boolean): void {
    if (leased) {
      this.leased(task)
      return
    }
    if (!this.#trackWaiting || this.#tasks.has(task.id)) return
    this.#tasks.set(task.id, this.#entry(task, 'waiting'))
  }

  /** This replica holds the task's lease now. */
  leased(task: Task): void {
    const known = this.#tasks.get(task.id)
    if (known) known.state = 'running'
    else this.#tasks.set(task.id, this.#entry(task, 'running'))
  }

  /** The run ended here (lease released or lost) or the task finished: the entry goes. */
  forget(taskId: string): Tracked | undefined {
    const known = this.#tasks.get(taskId)
    this.#tasks.delete(taskId)
    return known
  }

  #entry(task: Task, state: Tracked['state']): Tracked {
    // A task already past SUBMITTED (resumed after input, taken over) has had its first event.
    return {
      agent: task.agent,
      state,
      createdAt: Date.parse(task.createdAt),
      reported: task.state !== 'SUBMITTED',
    }
  }

  *counts(): Iterable<{ agent: string; state: 'waiting' | 'running'; count: number }> {
    const counts = new Map<string, { agent: string; state: 'waiting' | 'running'; count: number }>()
    for (const { agent, state } of this.#tasks.values()) {
      const key = `${agent}\u0000${state}`
      const entry = counts.get(key) ?? { agent, state, count: 0 }
      entry.count += 1
      counts.set(key, entry)
    }
    yield* counts.values()
  }
}

const seconds = (since: number): number => Math.max(0, (performance.now() - since) / 1000)

/**
 * The store the engine and push worker write through, observed: every write the server makes
 * passes here, so the counters and the `task` span (recorded when a terminal status is committed)
 * need no hook in the engine, the store or the push worker. Reads pass through untouched.
 */
export const observedStore = (
  store: Store,
  options: { metrics: SwitchboardMetrics; tally: OpenTaskTally; logger: EngineLogger; tracer: Tracer },
): Store => {
  const { metrics, tally, logger, tracer } = options
  const readEvents: EventReader = (taskId, afterSeq, limit) => store.readEvents(taskId, afterSeq, limit)
  const finished = (task: Task, tracked: Tracked | undefined): void => {
    // Not awaited: the terminal write's caller does not wait for its span.
    recordTaskSpan(tracer, task, readEvents).catch((error: unknown) =>
      logger.warn({ err: error, taskId: task.id }, 'could not record the task span'),
    )
    metrics.tasksFinished.inc({ agent: task.agent, state: task.state })
    const createdAt = tracked?.createdAt ?? Date.parse(task.createdAt)
    const seconds = Math.max(0, (Date.now() - createdAt) / 1000)
    metrics.taskDuration.observe({ agent: task.agent, state: task.state }, seconds)
    logger.info(
      { taskId: task.id, agent: task.agent, state: task.state, durationMs: Math.round(seconds * 1000) },
      'task finished',
    )
  }
  const wrapped: Partial<Store> = {
    async createTask(request) {
      const started = performance.now()
      const result = await store.createTask(request)
      metrics.storeCommit.observe({ operation: 'create' }, seconds(started))
      if (result.created) {
        metrics.tasksCreated.inc({ agent: result.task.agent })
        logger.info({ taskId: result.task.id, agent: result.task.agent }, 'task created')
        if (isTerminal(result.task.state)) finished(result.task, undefined)
        else tally.needsRun(result.task, result.leased)
      }
      return result
    },
    async append(request) {
      const started = performance.now()
      const result = await store.append(request)
      metrics.storeCommit.observe({ operation: 'append' }, seconds(started))
      metrics.storeBatch.observe(request.events.length)
      // A resumed run's first write announces it (src/engine/resume.ts): counted once it is committed.
      for (const event of request.events) {
        const resume = resumeOf(event)
        if (resume) metrics.taskResumes.inc({ reason: resume.reason })
      }
      const { task } = result
      const before = tally.get(task.id)
      if (before && !before.reported) {
        before.reported = true
        metrics.taskFirstEvent.observe(
          { agent: task.agent },
          Math.max(0, (Date.now() - before.createdAt) / 1000),
        )
      }
      if (isTerminal(task.state)) {
        const tracked = tally.forget(task.id)
        // A terminal state is written at most once (the store contract), so this counts each task once.
        if (result.events.some((event) => event.kind === 'status')) finished(task, tracked)
      } else if (request.releaseLease) tally.forget(task.id)
      else if (request.requestRun) tally.needsRun(task, false)
      return result
    },
    async claimTasks(request) {
      const claimed = await store.claimTasks(request)
      for (const { task, interrupted } of claimed) {
        if (interrupted) metrics.leaseTakeovers.inc()
        tally.leased(task)
      }
      return claimed
    },
    async releaseLease(owner, taskId) {
      await store.releaseLease(owner, taskId)
      tally.forget(taskId)
    },
    async renewLeases(owner, taskIds, ttlMs) {
      const held = await store.renewLeases(owner, taskIds, ttlMs)
      if (held.length < taskIds.length) {
        const still = new Set(held)
        for (const id of taskIds) if (!still.has(id)) tally.forget(id)
      }
      return held
    },
    async settleDelivery(owner, deliveryId, outcome) {
      await store.settleDelivery(owner, deliveryId, outcome)
      metrics.pushDeliveries.inc({ outcome: outcome.result })
    },
  }
  // Every other member passes through, its methods bound once (not on every call).
  const bound = new Map<PropertyKey, unknown>()
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && Object.hasOwn(wrapped, property))
        return wrapped[property as keyof Store]
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (!bound.has(property)) bound.set(property, value.bind(target))
      return bound.get(property)
    },
  })
}

/**
 * The engine's logger with the agent added to every line that names a task this replica knows
 * (the engine logs the task id only): operators filter task lines by agent.
 */
export const withTaskAgents = (logger: EngineLogger, tally: OpenTaskTally): EngineLogger => {
  const tagged = (obj: object): object => {
    const taskId = (obj as { taskId?: unknown }).taskId
    if (typeof taskId !== 'string' || 'agent' in obj) return obj
    const agent = tally.get(taskId)?.agent
    return agent === undefined ? obj : { ...obj, agent }
  }
  return {
    info: (obj, msg) => logger.info(tagged(obj), msg),
    warn: (obj, msg) => logger.warn(tagged(obj), msg),
    error: (obj, msg) => logger.error(tagged(obj), msg),
  }
}
