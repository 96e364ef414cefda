import type { EventBus, TaskNote } from '../events/contract.ts'
import { isTerminal, type TaskState } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import type { Store } from '../store/contract.ts'
import type { CallerSignal } from './caller-signal.ts'
import type { TaskWatch } from './watch.ts'

export interface WaitOptions {
  store: Store
  bus: EventBus
  taskId: string
  /** Reads the task in the caller's scope (access checked). */
  read: () => Promise<Task>
  until: (state: TaskState) => boolean
  signal?: CallerSignal
  /** The task as the caller just had it, which spares a read when nothing followed it. */
  known?: Task
  /** Opened before the write that returned `known`: it holds whatever followed, so nothing is read back. */
  watch?: TaskWatch
}

/** Engine.waitFor: the task once its state satisfies `until` or is terminal, or when the signal aborts. */
export const waitForState = async (options: WaitOptions): Promise<Task> => {
  const { store, bus, taskId, read, until, signal, known, watch } = options
  let arrived: Task | undefined
  let stale = false
  let wake: (() => void) | undefined
  const done = (state: TaskState): boolean => until(state) || isTerminal(state)
  // Listen first, then look: nothing committed in between is missed.
  const listener = (note: TaskNote): void => {
    if (note.task && done(note.task.state)) arrived ??= note.task
    else if (!note.events || note.events.some((e) => e.kind === 'status' && done(e.state))) stale = true
    wake?.()
  }
  const unsubscribe = watch ? watch.listen(listener) : bus.subscribe(taskId, listener)
  const rouse = (): void => wake?.()
  signal?.addEventListener('abort', rouse)
  try {
    let task: Task
    if (known && (watch || (await store.readEvents(taskId, known.version, 1)).length === 0)) task = known
    else task = await read()
    while (!done(task.state) && !signal?.aborted) {
      if (arrived) return arrived
      if (stale) {
        stale = false
        task = await read()
        continue
      }
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      wake = undefined
    }
    return task
  } finally {
    unsubscribe()
    signal?.removeEventListener('abort', rouse)
  }
}
