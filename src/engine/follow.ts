import type { EventBus } from '../events/contract.ts'
import type { TaskEvent } from '../model/events.ts'
import { isTerminal } from '../model/states.ts'
import type { Store } from '../store/contract.ts'
import { LIMITS } from './limits.ts'

export interface FollowOptions {
  store: Store
  bus: EventBus
  taskId: string
  /** Yield events with seq greater than this (0: from the start; a Last-Event-ID to resume). */
  afterSeq: number
  signal?: AbortSignal
}

/** Events buffered for a slow consumer before it falls back to reading the store: bounded memory, no loss. */
const INBOX_LIMIT = 1024

export const isTerminalEvent = (event: TaskEvent): boolean =>
  event.kind === 'status' && isTerminal(event.state)

/**
 * Every event of a task after a cursor, in order, once each; ends after the terminal status.
 *
 * One path serves replays, live streams and resumes: subscribe to the bus first (so nothing
 * committed meanwhile is missed), read what the store has after the cursor, then serve notes from
 * the bus while they continue the sequence, going back to the store whenever there is a gap
 * (a note from another replica carries no events, or the consumer fell behind).
 */
export async function* followEvents(options: FollowOptions): AsyncGenerator<TaskEvent, void, undefined> {
  const { store, bus, taskId, signal } = options
  let cursor = options.afterSeq
  let inbox: TaskEvent[] = []
  let mustRead = true
  let wake: (() => void) | undefined
  const rouse = (): void => {
    const resolve = wake
    wake = undefined
    resolve?.()
  }
  const unsubscribe = bus.subscribe(taskId, (note) => {
    if (note.seq <= cursor) return
    if (note.events && inbox.length < INBOX_LIMIT) inbox.push(...note.events)
    else mustRead = true
    rouse()
  })
  signal?.addEventListener('abort', rouse)
  try {
    while (!signal?.aborted) {
      if (mustRead) {
        mustRead = false
        inbox = []
        const events = await store.readEvents(taskId, cursor, LIMITS.eventReadBatch)
        for (const event of events) {
          cursor = event.seq
          yield event
          if (isTerminalEvent(event)) return
        }
        if (events.length === LIMITS.eventReadBatch) mustRead = true
        continue
      }
      if (inbox.length > 0) {
        const batch = inbox
        inbox = []
        for (const event of batch) {
          if (event.seq <= cursor) continue
          if (event.seq !== cursor + 1) {
            mustRead = true
            break
          }
          cursor = event.seq
          yield event
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
