import type { Store } from '../store/contract.ts'
import type { EngineLogger } from './logger.ts'

export interface RetentionOptions {
  /** How long a finished task is kept after its final status. */
  maxAgeMs: number
  /** How often the sweeper looks for expired tasks (default: a minute). */
  intervalMs?: number
  /** Tasks deleted per transaction: small batches keep each write short (default 100). */
  batchSize?: number
}

export interface RetentionSweeperOptions extends Omit<RetentionOptions, 'maxAgeMs'> {
  store: Store
  logger: EngineLogger
  /** Finished tasks older than this go; absent: tasks are kept forever. */
  maxAgeMs?: number
  /** Idempotency keys older than this go (the engine's window); absent: keys are kept. */
  idempotencyWindowMs?: number
}

/**
 * Deletes finished tasks older than `maxAgeMs` and idempotency keys past their window in the
 * background, a batch per transaction, until a batch comes back short. The next pass is scheduled
 * only when this one ends, so passes never overlap; replicas sweeping one PostgreSQL database take
 * disjoint batches (the store skips rows another replica holds).
 */
export class RetentionSweeper {
  readonly #store: Store
  readonly #logger: EngineLogger
  readonly #maxAgeMs: number | undefined
  readonly #keyWindowMs: number | undefined
  readonly #intervalMs: number
  readonly #batchSize: number
  #timer: NodeJS.Timeout | undefined
  #pass: Promise<void> | undefined
  #stopped = false
  /** The index behind the search, made by the first pass (only a server with retention has it). */
  #indexed: Promise<void> | undefined

  constructor(options: RetentionSweeperOptions) {
    this.#store = options.store
    this.#logger = options.logger
    this.#maxAgeMs = options.maxAgeMs
    this.#keyWindowMs = options.idempotencyWindowMs
    this.#intervalMs = options.intervalMs ?? 60_000
    this.#batchSize = options.batchSize ?? 100
  }

  start(): void {
    this.#stopped = false
    this.#schedule(0)
  }

  /** Stops after the batch in flight, if any. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#pass
  }

  /** One pass over the tasks: batches until none is full. Resolves with how many tasks went. */
  async sweep(): Promise<number> {
    if (this.#maxAgeMs === undefined) return 0
    this.#indexed ??= this.#store.prepareIndex('finished-tasks')
    await this.#indexed
    const finishedBefore = new Date(Date.now() - this.#maxAgeMs).toISOString()
    return this.#batches(() => this.#store.deleteExpiredTasks({ finishedBefore, limit: this.#batchSize }))
  }

  /** One pass over the idempotency keys. Resolves with how many keys went. */
  sweepKeys(): Promise<number> {
    const olderThanMs = this.#keyWindowMs
    if (olderThanMs === undefined) return Promise.resolve(0)
    return this.#batches(() =>
      this.#store.deleteExpiredIdempotencyKeys({ olderThanMs, limit: this.#batchSize }),
    )
  }

  async #batches(batch: () => Promise<number>): Promise<number> {
    let deleted = 0
    for (;;) {
      const n = await batch()
      deleted += n
      if (n < this.#batchSize || this.#stopped) return deleted
    }
  }

  /** Tasks, then keys. Forgotten keys are routine (one per message a day ago), so they are not logged. */
  async #sweepAll(): Promise<number> {
    const deleted = await this.sweep()
    await this.sweepKeys()
    return deleted
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#pass = this.#sweepAll()
        .then(
          (deleted) => {
            if (deleted > 0) this.#logger.info({ deleted }, 'retention: deleted expired tasks')
          },
          (error: unknown) => this.#logger.error({ err: error }, 'retention: sweep failed'),
        )
        .finally(() => this.#schedule(this.#intervalMs))
    }, delayMs)
    this.#timer.unref()
  }
}
