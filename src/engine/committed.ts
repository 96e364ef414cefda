import type { TaskEvent } from '../model/events.ts'
import type { Task } from '../model/task.ts'

/**
 * What a commit wrote, as the engine hands it on: the events (for the bus), the task when it was
 * folded anyway, and whether push deliveries were enqueued (only then is the push worker woken).
 */
export interface CommittedWrite {
  events: readonly TaskEvent[]
  task?: Task
  outbox?: boolean
}

/** A store write's result as a CommittedWrite (its task read only if `withTask`: it may be folded lazily). */
export const committedWrite = (
  result: { events: readonly TaskEvent[]; task: Task; outbox?: boolean },
  withTask = true,
): CommittedWrite => ({
  events: result.events,
  ...(withTask && { task: result.task }),
  ...(result.outbox && { outbox: true }),
})
