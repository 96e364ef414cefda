import type { EventBus, TaskListener, TaskNote } from '../events/contract.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import type { CallerSignal } from './caller-signal.ts'

/** Notes a watch holds before it is taken over; past it, one note without events says "read the store". */
const HELD_LIMIT = 256

/**
 * A task's notes from before a write, held until whoever follows the task takes them over. Every
 * commit after the write reaches the watch (it was listening first), so the follower starts from
 * the task the write returned and needs no read-back of the store to learn what it missed.
 *
 * An unused watch lets go of the bus by itself once it holds the task's terminal status (nothing
 * follows it) or its signal aborts; the holder closes it otherwise.
 */
export class TaskWatch {
  readonly taskId: string
  #held: TaskNote[] = []
  #listener: TaskListener | undefined
  #unsubscribe: (() => void) | undefined
  readonly #signal: CallerSignal | undefined
  readonly #onAbort = (): void => this.close()

  constructor(bus: EventBus, taskId: string, signal?: CallerSignal) {
    this.taskId = taskId
    this.#signal = signal
    this.#unsubscribe = bus.subscribe(taskId, (note) => this.#note(note))
    signal?.addEventListener('abort', this.#onAbort)
  }

  /**
   * Hands `listener` the notes held so far, at once, then every later one; once only. Returns what
   * stops it. A watch that already let go (its task ended) hands over what it held and no more.
   */
  listen(listener: TaskListener): () => void {
    if (this.#listener) throw new Error(`the watch on task ${this.taskId} is already taken`)
    this.#listener = listener
    const held = this.#held
    this.#held = []
    for (const note of held) listener(note)
    return () => this.close()
  }

  close(): void {
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    this.#signal?.removeEventListener('abort', this.#onAbort)
  }

  #note(note: TaskNote): void {
    if (this.#listener) {
      this.#listener(note)
      return
    }
    if (this.#held.length >= HELD_LIMIT) this.#held = [{ taskId: this.taskId, seq: note.seq }]
    else this.#held.push(note)
    // Held, a terminal status is all anyone can still need: nothing is committed after it.
    // What it holds stays for a follower that comes late.
    if (note.events?.some((e) => e.kind === 'status' && isTerminal(e.state))) this.close()
  }
}

/**
 * A watch serves a follower that starts from the very task the watched write returned (`written`):
 * then every later commit is in the watch. Any other start is read from the store as usual, and
 * the watch is closed.
 */
export const withWatch = (
  watch: TaskWatch | undefined,
  from: Task | undefined,
  written: Task | undefined,
): { watch?: TaskWatch } => {
  if (!watch) return {}
  if (from !== undefined && from === written && watch.taskId === from.id) return { watch }
  watch.close()
  return {}
}
