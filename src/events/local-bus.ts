import type { TaskEvent } from '../model/events.ts'
import type { Task } from '../model/task.ts'
import { TransientMap } from '../model/transient-map.ts'
import type { EventBus, TaskListener, TaskNote } from './contract.ts'

/** The in-process bus: enough for one process (the SQLite deployment) and the base of the others. */
export class LocalBus implements EventBus {
  readonly #listeners = new TransientMap<string, Set<TaskListener>>()
  readonly #workListeners = new Set<() => void>()

  publish(taskId: string, events: readonly TaskEvent[], task?: Task): void {
    const last = events.at(-1)
    if (last) this.deliver(task ? { taskId, seq: last.seq, events, task } : { taskId, seq: last.seq, events })
  }

  /** Hands a note to this process's listeners; cross-process buses call it for remote notes too. */
  deliver(note: TaskNote): void {
    const listeners = this.#listeners.get(note.taskId)
    if (!listeners) return
    for (const listener of listeners) {
      try {
        listener(note)
      } catch {
        // A failing subscriber must not stop the others or the publisher.
      }
    }
  }

  subscribe(taskId: string, listener: TaskListener): () => void {
    let listeners = this.#listeners.get(taskId)
    if (!listeners) {
      listeners = new Set()
      this.#listeners.set(taskId, listeners)
    }
    listeners.add(listener)
    return () => {
      const current = this.#listeners.get(taskId)
      if (!current) return
      current.delete(listener)
      if (current.size === 0) this.#listeners.delete(taskId)
    }
  }

  announceWork(): void {
    this.deliverWork()
  }

  deliverWork(): void {
    for (const listener of this.#workListeners) {
      try {
        listener()
      } catch {
        // isolated, as above
      }
    }
  }

  onWork(listener: () => void): () => void {
    this.#workListeners.add(listener)
    return () => this.#workListeners.delete(listener)
  }

  async close(): Promise<void> {
    this.#listeners.clear()
    this.#workListeners.clear()
  }
}
