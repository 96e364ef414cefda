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

export interface RetentionSweeperOptions extends RetentionOptions {
  store: Store
  logger: EngineLogger
}

/**
 * Deletes finished tasks older than `maxAgeMs` in the background, a batch per transaction, until a
 * batch comes back short. The next pass is scheduled only when this one ends, so passes never
 * overlap; replicas sweeping one PostgreSQL database take disjoint batches (the store skips rows
 * another replica holds).
 */
export class RetentionSweeper {
  readonly #store: Store
  readonly #logger: EngineLogger
  readonly #maxAgeMs: number
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

  /** One pass: batches until none is full. Resolves with how many tasks went. */
  async sweep(): Promise<number> {
    this.#indexed ??= this.#store.prepareIndex('finished-tasks')
    await this.#indexed
    const finishedBefore = new Date(Date.now() - this.#maxAgeMs).toISOString()
    let deleted = 0
    for (;;) {
      const n = await this.#store.deleteExpiredTasks({ finishedBefore, limit: this.#batchSize })
      deleted += n
      if (n < this.#batchSize || this.#stopped) return deleted
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#pass = this.sweep()
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
