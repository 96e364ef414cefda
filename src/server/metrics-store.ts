import type { EngineLogger } from '../engine/logger.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import type { SwitchboardMetrics } from '../observability/metrics.ts'
import type { Store } from '../store/contract.ts'

interface Tracked {
  agent: string
  state: 'waiting' | 'running'
  createdAt: number
  reported: boolean
}

/**
 * The open tasks this replica created or wrote to, for the waiting/running gauge and the task
 * histograms. Bounded by the open tasks: an entry goes when its task reaches a terminal state.
 */
export class OpenTaskTally {
  readonly #tasks = new Map<string, Tracked>()

  get(taskId: string): Tracked | undefined {
    return this.#tasks.get(taskId)
  }

  see(task: Task): Tracked | undefined {
    if (isTerminal(task.state)) {
      const last = this.#tasks.get(task.id)
      this.#tasks.delete(task.id)
      return last
    }
    const state = task.state === 'SUBMITTED' ? 'waiting' : 'running'
    const known = this.#tasks.get(task.id)
    if (known) known.state = state
    else
      this.#tasks.set(task.id, {
        agent: task.agent,
        state,
        createdAt: Date.parse(task.createdAt),
        reported: false,
      })
    return known
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
 * passes here, so the counters need no hook in the engine, the store or the push worker. Reads
 * pass through untouched.
 */
export const observedStore = (
  store: Store,
  metrics: SwitchboardMetrics,
  tally: OpenTaskTally,
  logger: EngineLogger,
): Store => {
  const finished = (task: Task, tracked: Tracked | undefined): void => {
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
        else tally.see(result.task)
      }
      return result
    },
    async append(request) {
      const started = performance.now()
      const result = await store.append(request)
      metrics.storeCommit.observe({ operation: 'append' }, seconds(started))
      metrics.storeBatch.observe(request.events.length)
      const { task } = result
      const before = tally.get(task.id)
      if (before && !before.reported) {
        before.reported = true
        metrics.taskFirstEvent.observe(
          { agent: task.agent },
          Math.max(0, (Date.now() - before.createdAt) / 1000),
        )
      }
      const tracked = tally.see(task)
      // A terminal state is written at most once (the store contract), so this counts each task once.
      if (isTerminal(task.state) && result.events.some((event) => event.kind === 'status'))
        finished(task, tracked)
      return result
    },
    async claimTasks(request) {
      const claimed = await store.claimTasks(request)
      for (const { task, interrupted } of claimed) {
        if (interrupted) metrics.leaseTakeovers.inc()
        tally.see(task)
      }
      return claimed
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
