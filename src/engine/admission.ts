import type { EventBus } from '../events/contract.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { EventBody, TaskEvent } from '../model/events.ts'
import { INTERRUPTED_STATES, isTerminal } from '../model/states.ts'
import type { ClaimedTask, Store } from '../store/contract.ts'
import type { EngineLogger } from './logger.ts'
import type { AgentRegistry } from './registry.ts'
import { type FileFetcher, TaskRun } from './run.ts'

export interface AdmissionOptions {
  store: Store
  bus: EventBus
  agents: AgentRegistry
  owner: string
  concurrency: number
  leaseMs: number
  pollMs: number
  shutdownGraceMs: number
  committed: (taskId: string, events: readonly TaskEvent[]) => void
  fetchFile: FileFetcher
  logger: EngineLogger
}

const interrupted = (message: string): EventBody => ({
  kind: 'status',
  state: 'FAILED',
  error: { code: 'AGENT_INTERRUPTED', message },
})

/**
 * Decides which tasks run here. A task runs only under a lease held by this replica: claimed from
 * the store (any replica may have created it), or granted in the transaction that created it when
 * there was capacity (the fast path). Leases are heartbeated; a run whose lease is lost is aborted.
 */
export class Admission {
  readonly #options: AdmissionOptions
  readonly #runs = new Map<string, TaskRun>()
  readonly #done = new Map<string, Promise<void>>()
  /** Runs plus reservations, per agent slug. */
  readonly #load = new Map<string, number>()
  #total = 0
  #pumping = false
  #again = false
  #stopped = false
  #timers: NodeJS.Timeout[] = []

  constructor(options: AdmissionOptions) {
    this.#options = options
  }

  start(): void {
    const { pollMs, leaseMs } = this.#options
    this.#timers = [
      setInterval(() => void this.pump(), pollMs),
      setInterval(() => void this.#heartbeat(), Math.max(100, Math.floor(leaseMs / 3))),
    ]
    for (const timer of this.#timers) timer.unref()
    void this.pump()
  }

  get running(): number {
    return this.#runs.size
  }

  /** Takes one unit of capacity for `slug` if there is any; the caller then creates the task leased. */
  reserve(slug: string): boolean {
    if (this.#stopped || this.#total >= this.#options.concurrency) return false
    const limit = this.#options.agents.get(slug).definition.concurrency ?? Number.POSITIVE_INFINITY
    const load = this.#load.get(slug) ?? 0
    if (load >= limit) return false
    this.#load.set(slug, load + 1)
    this.#total += 1
    return true
  }

  unreserve(slug: string): void {
    this.#load.set(slug, (this.#load.get(slug) ?? 1) - 1)
    this.#total -= 1
  }

  /** Runs a task this replica already holds the lease of (a reservation is consumed). */
  run(claimed: ClaimedTask): void {
    this.#done.set(claimed.task.id, this.#runToEnd(claimed))
  }

  async #runToEnd(claimed: ClaimedTask): Promise<void> {
    const { task } = claimed
    try {
      await this.#execute(claimed)
    } finally {
      this.#runs.delete(task.id)
      this.#done.delete(task.id)
      this.unreserve(task.agent)
      try {
        await this.#options.store.releaseLease(this.#options.owner, task.id)
      } catch (error) {
        this.#options.logger.error({ err: error, taskId: task.id }, 'could not release a lease')
      }
      void this.pump()
    }
  }

  /** Claims runnable tasks up to the free capacity. Concurrent calls coalesce into one more round. */
  async pump(): Promise<void> {
    if (this.#stopped) return
    if (this.#pumping) {
      this.#again = true
      return
    }
    this.#pumping = true
    try {
      do {
        this.#again = false
        await this.#claimRound()
      } while (this.#again && !this.#stopped)
    } catch (error) {
      this.#options.logger.error({ err: error }, 'admission failed to claim tasks')
    } finally {
      this.#pumping = false
    }
  }

  async #claimRound(): Promise<void> {
    const { store, agents, owner, leaseMs, concurrency } = this.#options
    const unlimited: string[] = []
    const limited: { slug: string; free: number }[] = []
    for (const agent of agents.all()) {
      const limit = agent.definition.concurrency
      if (limit === undefined) unlimited.push(agent.definition.slug)
      else if ((this.#load.get(agent.definition.slug) ?? 0) < limit) {
        limited.push({
          slug: agent.definition.slug,
          free: limit - (this.#load.get(agent.definition.slug) ?? 0),
        })
      }
    }
    const rounds: { agents: string[] | undefined; limit: number }[] = []
    if (unlimited.length > 0) {
      // Without per-agent limits one unfiltered claim serves every agent.
      const everyAgent = unlimited.length === agents.all().length
      rounds.push({ agents: everyAgent ? undefined : unlimited, limit: Number.POSITIVE_INFINITY })
    }
    for (const { slug, free } of limited) rounds.push({ agents: [slug], limit: free })
    for (const round of rounds) {
      const free = Math.min(concurrency - this.#total, round.limit)
      if (free <= 0 || this.#stopped) continue
      const claimed = await store.claimTasks({
        owner,
        limit: free,
        ttlMs: leaseMs,
        ...(round.agents && { agents: round.agents }),
      })
      for (const task of claimed) {
        this.#load.set(task.task.agent, (this.#load.get(task.task.agent) ?? 0) + 1)
        this.#total += 1
        this.run(task)
      }
      if (claimed.length === free) this.#again = true
    }
  }

  async #execute({ task, interrupted: wasInterrupted }: ClaimedTask): Promise<void> {
    const { store, agents, owner, committed } = this.#options
    if (isTerminal(task.state) || INTERRUPTED_STATES.has(task.state)) return
    const finalStatus = (body: EventBody): Promise<void> =>
      store
        .append({ taskId: task.id, events: [body], leaseOwner: owner })
        .then(({ events }) => committed(task.id, events))
    if (!agents.has(task.agent)) {
      await finalStatus(interrupted(`agent "${task.agent}" is no longer hosted by this server`))
      return
    }
    const agent = agents.get(task.agent)
    if (wasInterrupted && task.state === 'WORKING' && !agent.definition.retryable) {
      await finalStatus(
        interrupted('the server stopped while the task was running, and the agent is not retryable'),
      )
      return
    }
    const run = new TaskRun({
      task,
      agent,
      store,
      bus: this.#options.bus,
      owner,
      committed,
      fetchFile: this.#options.fetchFile,
    })
    this.#runs.set(task.id, run)
    try {
      await run.execute()
    } catch (error) {
      this.#options.logger.error({ err: error, taskId: task.id }, 'task run failed unexpectedly')
    }
  }

  async #heartbeat(): Promise<void> {
    const ids = [...this.#runs.keys()]
    if (ids.length === 0) return
    try {
      const held = new Set(
        await this.#options.store.renewLeases(this.#options.owner, ids, this.#options.leaseMs),
      )
      for (const id of ids) {
        if (!held.has(id))
          this.#runs.get(id)?.abort(new SwitchboardError('LEASE_LOST', `lease on task ${id} was lost`))
      }
    } catch (error) {
      this.#options.logger.error({ err: error }, 'could not renew leases')
    }
  }

  /**
   * Stops claiming, gives running handlers `shutdownGraceMs` to finish, then interrupts the rest:
   * a retryable agent's task is left runnable for the next start, any other fails AGENT_INTERRUPTED.
   */
  async stop(): Promise<void> {
    this.#stopped = true
    for (const timer of this.#timers) clearInterval(timer)
    const pending = [...this.#done.values()]
    if (pending.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled(pending),
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.#options.shutdownGraceMs)
      }),
    ])
    clearTimeout(timer)
    const { store, owner, agents, committed, logger } = this.#options
    for (const run of this.#runs.values()) {
      if (!agents.has(run.agentSlug) || !agents.get(run.agentSlug).definition.retryable) {
        try {
          const { events } = await store.append({
            taskId: run.taskId,
            events: [interrupted('the server shut down while the task was running')],
            leaseOwner: owner,
          })
          committed(run.taskId, events)
        } catch (error) {
          logger.warn({ err: error, taskId: run.taskId }, 'could not mark an interrupted task')
        }
      }
      run.abort(new SwitchboardError('UNAVAILABLE', 'the server is shutting down'))
    }
    await Promise.allSettled([...this.#done.values()])
  }
}
