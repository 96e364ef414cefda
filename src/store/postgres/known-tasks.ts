import { isTerminal } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { KnownTask } from './task-writes.ts'

/** Tasks remembered at most; past it the longest-known goes first. */
export const KNOWN_TASKS_LIMIT = 4096

/**
 * The task rows this store last wrote or read, so an append can be folded without reading its row
 * first. A guess, never trusted: the commit compares the row's version (and lease and push
 * configs) with the one folded from, and a stale entry only sends the append to the locked path.
 * A terminal task takes no more appends, so it is forgotten.
 */
export class KnownTasks {
  readonly #rows = new Map<string, KnownTask>()

  get(taskId: string): KnownTask | undefined {
    return this.#rows.get(taskId)
  }

  set(task: Task, row: KnownTask): void {
    this.#rows.delete(task.id)
    if (isTerminal(task.state)) return
    this.#rows.set(task.id, row)
    if (this.#rows.size > KNOWN_TASKS_LIMIT) this.#rows.delete(this.#rows.keys().next().value!)
  }

  forget(taskId: string): void {
    this.#rows.delete(taskId)
  }

  get size(): number {
    return this.#rows.size
  }
}
