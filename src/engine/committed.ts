import type { TaskEvent } from '../model/events.ts'
import type { Task } from '../model/task.ts'

/**
 * What a commit wrote, as the engine hands it on: the events (for the bus), the task when it was
 * folded anyway, and whether push deliveries were enqueued (only then is the push worker woken).
 * A store's AppendResult is one as it stands.
 */
export interface CommittedWrite {
  events: readonly TaskEvent[]
  task?: Task
  outbox?: boolean
}
