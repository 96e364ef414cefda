/**
 * The NOTIFY channels the PostgreSQL store writes (inside the committing transaction, so a note is
 * sent exactly when its events become visible) and the PostgreSQL bus listens to.
 * Payloads start with the writer's replica tag: a bus skips its own replica's notes, which
 * `publish` already delivered in-process with their events.
 */
export const EVENTS_CHANNEL = 'switchboard_events'
export const WORK_CHANNEL = 'switchboard_work'

/**
 * `<replicaTag>|<taskId>|<seq>`: task `taskId` has committed events up to `seq`. A group commit
 * sends the notes of its tasks in one payload, one a line.
 */
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

/**
 * Notes a group commit packs into one notification: each is under 100 bytes, so a payload stays
 * well below PostgreSQL's 8,000-byte limit.
 */
export const NOTES_PER_NOTIFY = 64

/** Every well-formed note of a payload (one a line). */
export const parseTaskNotes = (payload: string): ParsedTaskNote[] => {
  const notes: ParsedTaskNote[] = []
  for (const line of payload.split('\n')) {
    const note = parseTaskNote(line)
    if (note) notes.push(note)
  }
  return notes
}

/** A replica tag never contains the separator, so payloads stay parseable. */
export const isReplicaTag = (tag: string): boolean =>
  tag.length > 0 && !tag.includes('|') && !tag.includes('\n')
