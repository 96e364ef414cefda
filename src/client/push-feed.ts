import { ClientError } from './errors.ts'
import type { WireItem } from './types.ts'

/** Items kept per task for iterators that start late; a task that outgrows it is followed from the newest. */
const MAX_ITEMS = 10_000

/**
 * The webhook deliveries of one task, in arrival order. Every `items()` iteration starts from
 * the first one kept (as a stream replays from the start) and then waits for more.
 */
export class PushFeed {
  readonly #items: WireItem[] = []
  #dropped = 0
  readonly #waiters = new Set<() => void>()

  push(item: WireItem): void {
    this.#items.push(item)
    if (this.#items.length > MAX_ITEMS) {
      this.#items.shift()
      this.#dropped += 1
    }
    for (const wake of [...this.#waiters]) wake()
  }

  get size(): number {
    return this.#items.length + this.#dropped
  }

  async *items(signal: AbortSignal): AsyncGenerator<WireItem> {
    let next = this.#dropped
    for (;;) {
      while (next < this.#dropped + this.#items.length) {
        const index = Math.max(next, this.#dropped) - this.#dropped
        next = this.#dropped + index + 1
        yield this.#items[index]!
      }
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) {
          reject(new ClientError('ABORTED', 'following the task was aborted', { cause: signal.reason }))
          return
        }
        const wake = (): void => {
          this.#waiters.delete(wake)
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = (): void => {
          this.#waiters.delete(wake)
          reject(new ClientError('ABORTED', 'following the task was aborted', { cause: signal.reason }))
        }
        this.#waiters.add(wake)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    }
  }
}
