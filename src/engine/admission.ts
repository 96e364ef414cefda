import type { FileFetcher } from '../agent/context.ts'
import type { EventBus } from '../events/contract.ts'
import { isSwitchboardError, SwitchboardError } from '../model/errors.ts'
import type { EventBody } from '../model/events.ts'
import { INTERRUPTED_STATES, isTerminal } from '../model/states.ts'
import { TransientMap } from '../model/transient-map.ts'
import type { ClaimedTask, Store } from '../store/contract.ts'
import type { CommittedWrite } from './committed.ts'
import type { EngineLogger } from './logger.ts'
import type { AgentRegistry } from './registry.ts'
import type { ResumeReason } from './resume.ts'
import { TaskRun } from './run.ts'

export interface AdmissionOptions {
  store: Store
  bus: EventBus
  agents: AgentRegistry
  owner: string
  concurrency: number
  leaseMs: number
  pollMs: number
  shutdownGraceMs: number
  committed: (taskId: string, write: CommittedWrite) => void
  fetchFile: FileFetcher
  /** What one task's artifacts may take in all (LIMITS.taskArtifactBytes by default). */
  taskArtifactBytes?: number | undefined
  /** Files up to this size keep their bytes inline (LIMITS.inlineFileBytes by default). */
  inlineFileBytes?: number | undefined
  logger: EngineLogger
  /** What a replay of an interrupted task is called here: `restart` (single-process store) or `takeover`. */
  resumeReason: ResumeReason
}

/**
 * How a run ended: its last write released the lease with it; it recorded its end (or had nothing
 * to record) and the lease must be released; or it could not record its end, and the lease lapses.
 */
type RunEnd = 'released' | 'recorded' | 'unrecorded'

/** How often runs are checked for leases about to lapse unrenewed; they stop two checks early. */
const fenceEvery = (leaseMs: number): number => Math.max(50, Math.floor(leaseMs / 10))

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
  readonly #runs = new TransientMap<string, TaskRun>()
  readonly #done = new TransientMap<string, Promise<void>>()
  /** Per held task, when the claim or renewal that last extended its lease was sent (performance.now()). */
  readonly #leasedAt = new TransientMap<string, number>()
  /** Runs plus reservations, per agent slug. */
  readonly #load = new Map<string, number>()
  #total = 0
  #pumping = false
  #again = false
  /**
   * Runnable tasks may be waiting that the last claim round left: it was cut short by capacity (the
   * whole replica's or an agent's), took all it asked for, or failed. Only then does a run's end
   * claim at once; otherwise announced work and the poll bring the next claim.
   */
  #backlog = false
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
      setInterval(() => this.#fence(), fenceEvery(leaseMs)),
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

  /**
   * Runs a task this replica already holds the lease of (a reservation is consumed). `leasedAt`:
   * when the request that took the lease was sent (performance.now(), which wall-clock steps do not
   * move); the lease runs from no earlier than that.
   */
  run(claimed: ClaimedTask, leasedAt: number): void {
    this.#leasedAt.set(claimed.task.id, leasedAt)
    this.#done.set(claimed.task.id, this.#runToEnd(claimed))
  }

  async #runToEnd(claimed: ClaimedTask): Promise<void> {
    const { task } = claimed
    let ended: RunEnd = 'unrecorded'
    try {
      ended = await this.#execute(claimed)
    } catch (error) {
      // The store refused a final status (the database is failing): log it, never crash the replica.
      this.#options.logger.error({ err: error, taskId: task.id }, 'could not record how a task run ended')
    } finally {
      const reason = this.#runs.get(task.id)?.abortReason
      this.#runs.delete(task.id)
      this.#done.delete(task.id)
      this.#leasedAt.delete(task.id)
      this.unreserve(task.agent)
      // A run stopped over its lease, or one that could not record how it ended, is left as a dead
      // replica would leave it: the lease lapses and the next claimer sees the task as interrupted,
      // so the agent's retry policy decides. Released, it would look like fresh work and run again.
      // A run cut short by shutdown is left the same way: stop() then expires the lease at once.
      const leftBehind = isSwitchboardError(reason) && (reason.code === 'LEASE_LOST' || this.#stopped)
      if (ended === 'recorded' && !leftBehind) {
        try {
          await this.#options.store.releaseLease(this.#options.owner, task.id)
        } catch (error) {
          this.#options.logger.error({ err: error, taskId: task.id }, 'could not release a lease')
        }
      }
      // A run that released its lease with its outcome leaves nothing of its own to run; one that
      // was suspended or cut short may have an answer waiting for the lease it just gave up.
      if (this.#backlog || ended !== 'released') void this.pump()
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
      this.#backlog = true
      this.#options.logger.error({ err: error }, 'admission failed to claim tasks')
    } finally {
      this.#pumping = false
    }
  }

  async #claimRound(): Promise<void> {
    const { store, agents, owner, leaseMs, concurrency } = this.#options
    const unlimited: string[] = []
    const limited: { slug: string; free: number }[] = []
    let drained = true
    for (const agent of agents.all()) {
      const limit = agent.definition.concurrency
      if (limit === undefined) unlimited.push(agent.definition.slug)
      else if ((this.#load.get(agent.definition.slug) ?? 0) < limit) {
        limited.push({
          slug: agent.definition.slug,
          free: limit - (this.#load.get(agent.definition.slug) ?? 0),
        })
      } else drained = false
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
      if (this.#stopped) continue
      if (free <= 0) {
        drained = false
        continue
      }
      const askedAt = performance.now()
      const claimed = await store.claimTasks({
        owner,
        limit: free,
        ttlMs: leaseMs,
        ...(round.agents && { agents: round.agents }),
      })
      for (const task of claimed) {
        this.#load.set(task.task.agent, (this.#load.get(task.task.agent) ?? 0) + 1)
        this.#total += 1
        this.run(task, askedAt)
      }
      if (claimed.length === free) {
        this.#again = true
        drained = false
      }
    }
    this.#backlog = !drained
  }

  /** Runs the claimed task; says whether the run recorded its end, and whether that freed the lease. */
  async #execute({ task, interrupted: wasInterrupted }: ClaimedTask): Promise<RunEnd> {
    const { store, agents, owner, committed } = this.#options
    if (isTerminal(task.state) || INTERRUPTED_STATES.has(task.state)) return 'recorded'
    const finalStatus = (body: EventBody): Promise<RunEnd> =>
      store
        .append({ taskId: task.id, events: [body], leaseOwner: owner, releaseLease: true })
        .then((appended) => {
          committed(task.id, appended)
          return 'released'
        })
    if (!agents.has(task.agent)) {
      return finalStatus(interrupted(`agent "${task.agent}" is no longer hosted by this server`))
    }
    const agent = agents.get(task.agent)
    if (wasInterrupted && task.state === 'WORKING' && !agent.definition.retryable) {
      return finalStatus(
        interrupted('the server stopped while the task was running, and the agent is not retryable'),
      )
    }
    // A handler that was running when its holder stopped replays; subscribers are told why first.
    const resumes = wasInterrupted && task.state === 'WORKING'
    const run = new TaskRun({
      task,
      agent,
      store,
      bus: this.#options.bus,
      owner,
      committed,
      fetchFile: this.#options.fetchFile,
      taskArtifactBytes: this.#options.taskArtifactBytes,
      inlineFileBytes: this.#options.inlineFileBytes,
      resume: resumes ? { reason: this.#options.resumeReason, replica: owner } : undefined,
    })
    this.#runs.set(task.id, run)
    try {
      await run.execute()
      return run.released ? 'released' : 'recorded'
    } catch (error) {
      this.#options.logger.error({ err: error, taskId: task.id }, 'task run failed unexpectedly')
      return 'unrecorded'
    }
  }

  async #heartbeat(): Promise<void> {
    const ids = this.#runs.keys()
    if (ids.length === 0) return
    const sentAt = performance.now()
    try {
      const held = new Set(
        await this.#options.store.renewLeases(this.#options.owner, ids, this.#options.leaseMs),
      )
      for (const id of ids) {
        if (!held.has(id))
          this.#runs.get(id)?.abort(new SwitchboardError('LEASE_LOST', `lease on task ${id} was lost`))
        else if (this.#runs.has(id) && sentAt > (this.#leasedAt.get(id) ?? 0)) this.#leasedAt.set(id, sentAt)
      }
    } catch (error) {
      this.#options.logger.error({ err: error }, 'could not renew leases')
    }
  }

  /**
   * A replica that cannot reach the database (a partition, a stalled server) cannot renew, and once
   * a lease lapses another replica may take the task over. So a run whose lease has gone unrenewed
   * for nearly a whole term stops first: the lease, counted from when its last renewal was sent,
   * cannot have lapsed yet, and the two never run the task at once. Heartbeats that hang are not
   * waited for; this runs on its own timer.
   */
  #fence(): void {
    const { leaseMs } = this.#options
    const deadline = performance.now() - (leaseMs - 2 * fenceEvery(leaseMs))
    for (const [id, run] of this.#runs.entries()) {
      if ((this.#leasedAt.get(id) ?? Number.POSITIVE_INFINITY) <= deadline) {
        this.#options.logger.warn({ taskId: id }, 'stopping a run whose lease could not be renewed in time')
        run.abort(new SwitchboardError('LEASE_LOST', `the lease on task ${id} could not be renewed in time`))
      }
    }
  }

  /**
   * Stops claiming, gives running handlers `shutdownGraceMs` to finish, then interrupts the rest:
   * a retryable agent's task is handed over (its lease expired now, so the next claimer, another
   * replica or this store's next start, takes it at once and announces the resume, as after a
   * crash), any other fails AGENT_INTERRUPTED.
   */
  async stop(): Promise<void> {
    this.#stopped = true
    for (const timer of this.#timers) clearInterval(timer)
    const pending = this.#done.values()
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
          const appended = await store.append({
            taskId: run.taskId,
            events: [interrupted('the server shut down while the task was running')],
            leaseOwner: owner,
          })
          committed(run.taskId, appended)
        } catch (error) {
          logger.warn({ err: error, taskId: run.taskId }, 'could not mark an interrupted task')
        }
      }
      run.abort(new SwitchboardError('UNAVAILABLE', 'the server is shutting down'))
    }
    await Promise.allSettled(this.#done.values())
    try {
      await store.expireLeases(owner)
    } catch (error) {
      logger.warn({ err: error }, 'could not hand over the leases of interrupted runs; they lapse instead')
    }
  }
}
