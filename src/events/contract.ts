import type { TaskEvent } from '../model/events.ts'
import type { Task } from '../model/task.ts'

/**
 * "Task T has new events up to seq N". The in-process bus hands over the events themselves so a
 * subscriber need not read them back; a cross-process bus (PostgreSQL LISTEN/NOTIFY) carries only
 * (task, seq) and subscribers read the events from the store. Either way the store's log is the
 * truth: a note only says where to look.
 */
export interface TaskNote {
  taskId: string
  seq: number
  /** The events, when the publisher is in this process. Contiguous and ascending. */
  events?: readonly TaskEvent[]
  /**
   * The task after these events, when the publisher is in this process and had it folded (status
   * changes). Shared by every listener: read it, never change it.
   */
  task?: Task
}

export type TaskListener = (note: TaskNote) => void

export interface EventBus {
  /** Called after the events are committed. Never throws; listener errors are isolated. */
  publish(taskId: string, events: readonly TaskEvent[], task?: Task): void
  subscribe(taskId: string, listener: TaskListener): () => void
  /** New runnable work exists somewhere (a task was created or answered): replicas wake admission. */
  announceWork(): void
  onWork(listener: () => void): () => void
  close(): Promise<void>
}
