import type { EventBus, TaskNote } from '../events/contract.ts'
import type { TaskEvent } from '../model/events.ts'
import { applyEvent, emptyTask, headerOf } from '../model/fold.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import type { Store } from '../store/contract.ts'
import { LIMITS } from './limits.ts'
import type { TaskWatch } from './watch.ts'

/**
 * One event of a followed task, with the task as it stood at that event (folded up to and
 * including it). `task` is one object folded on in place: it is valid until the next iteration.
 */
export interface FollowedEvent {
  event: TaskEvent
  task: Task
}

export interface FollowOptions {
  store: Store
  bus: EventBus
  /** The task the stream starts from, folded on in place: the stream reads the events after its version. */
  task: Task
  /** Yield events with seq greater than this (events up to it are only folded): a Last-Event-ID. */
  afterSeq: number
  signal?: AbortSignal
  /** Opened before the write that returned `task`: it holds whatever followed, so nothing is read first. */
  watch?: TaskWatch
}

/** Events buffered for a slow consumer before it falls back to reading the store: bounded memory, no loss. */
const INBOX_LIMIT = 1024

const isTerminalEvent = (event: TaskEvent): boolean => event.kind === 'status' && isTerminal(event.state)

/**
 * The task at a cursor: `known` itself when it is already there (the usual reconnect), else the
 * fold of the log up to the cursor, read in pages. Only what the stream needs: no bus, no yield.
 */
export const taskAt = async (store: Store, known: Task, afterSeq: number): Promise<Task> => {
  if (afterSeq >= known.version) return known
  const task = emptyTask(headerOf(known))
  while (task.version < afterSeq) {
    const limit = Math.min(LIMITS.eventReadBatch, afterSeq - task.version)
    const events = await store.readEvents(known.id, task.version, limit)
    for (const event of events) applyEvent(task, event)
    if (events.length < limit) break
  }
  return task
}

/**
 * Every event of a task after its version, in order, once each, folded into the task; yields those
 * after `afterSeq`, and ends after the terminal status (at once when the task already is terminal).
 *
 * One path serves replays, live streams and resumes: subscribe to the bus first (so nothing
 * committed meanwhile is missed), read what the store has after the cursor, then serve notes from
 * the bus while they continue the sequence, going back to the store whenever there is a gap
 * (a note from another replica carries no events, or the consumer fell behind). A watch opened
 * before the write that returned the task stands for the subscription and the first read.
 */
export async function* followEvents(options: FollowOptions): AsyncGenerator<FollowedEvent, void, undefined> {
  const { store, bus, task, afterSeq, signal, watch } = options
  if (isTerminal(task.state)) {
    watch?.close()
    return
  }
  const taskId = task.id
  let inbox: TaskEvent[] = []
  let mustRead = watch === undefined
  let wake: (() => void) | undefined
  const rouse = (): void => {
    const resolve = wake
    wake = undefined
    resolve?.()
  }
  const listener = (note: TaskNote): void => {
    if (note.seq <= task.version) return
    if (note.events && inbox.length < INBOX_LIMIT) inbox.push(...note.events)
    else mustRead = true
    rouse()
  }
  const unsubscribe = watch ? watch.listen(listener) : bus.subscribe(taskId, listener)
  signal?.addEventListener('abort', rouse)
  try {
    while (!signal?.aborted) {
      if (mustRead) {
        mustRead = false
        inbox = []
        const events = await store.readEvents(taskId, task.version, LIMITS.eventReadBatch)
        for (const event of events) {
          applyEvent(task, event)
          if (event.seq > afterSeq) yield { event, task }
          if (isTerminalEvent(event)) return
        }
        if (events.length === LIMITS.eventReadBatch) mustRead = true
        continue
      }
      if (inbox.length > 0) {
        const batch = inbox
        inbox = []
        for (const event of batch) {
          if (event.seq <= task.version) continue
          if (event.seq !== task.version + 1) {
            mustRead = true
            break
          }
          applyEvent(task, event)
          if (event.seq > afterSeq) yield { event, task }
          if (isTerminalEvent(event)) return
        }
        continue
      }
      await new Promise<void>((resolve) => {
        wake = resolve
      })
    }
  } finally {
    unsubscribe()
    signal?.removeEventListener('abort', rouse)
  }
}
