/**
 * The NOTIFY channels the PostgreSQL store writes (inside the committing transaction, so a note is
 * sent exactly when its events become visible) and the PostgreSQL bus listens to.
 * Payloads start with the writer's replica tag: a bus skips its own replica's notes, which
 * `publish` already delivered in-process with their events.
 */
export const EVENTS_CHANNEL = 'switchboard_events'
export const WORK_CHANNEL = 'switchboard_work'

/** `<replicaTag>|<taskId>|<seq>`: task `taskId` has committed events up to `seq`. */
export const formatTaskNote = (replicaTag: string, taskId: string, seq: number): string =>
  `${replicaTag}|${taskId}|${seq}`

export interface ParsedTaskNote {
  replicaTag: string
  taskId: string
  seq: number
}

export const parseTaskNote = (payload: string): ParsedTaskNote | undefined => {
  const first = payload.indexOf('|')
  const last = payload.lastIndexOf('|')
  if (first <= 0 || last <= first + 1) return undefined
  const seq = Number(payload.slice(last + 1))
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined
  return { replicaTag: payload.slice(0, first), taskId: payload.slice(first + 1, last), seq }
}

/** A replica tag never contains the separator, so payloads stay parseable. */
export const isReplicaTag = (tag: string): boolean => tag.length > 0 && !tag.includes('|')
