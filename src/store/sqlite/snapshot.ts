import type { Task } from '../../model/task.ts'
import type { FoldedRow, SnapshotRow } from './rows.ts'

/**
 * Quiet events (logs, artifacts) allowed after a snapshot before an append folds them into a new
 * one; and how far the stored artifacts may lag behind the snapshot before a fold writes them out
 * again. A reader folds at most twice this many events, and usually none or one events row.
 */
export const SNAPSHOT_EVERY = 64

/**
 * Artifacts smaller than this (with the snapshot or the events that hold them) stay in the
 * snapshot at every fold, as before migration 8: a read folding them from the events rows would
 * cost more than the write saves (bench/HISTORY.md, _The snapshot without its artifacts_).
 */
const ARTIFACTS_APART_BYTES = 2048

/**
 * The snapshot as stored: the task without its artifacts, which have a column of their own
 * (migration 8). Swapped out and back rather than copied: the task is the store's own.
 */
export const snapshotOf = (task: Task): string => {
  const { artifacts } = task
  task.artifacts = []
  try {
    return JSON.stringify(task)
  } finally {
    task.artifacts = artifacts
  }
}

export const KEEP = Symbol('the stored artifacts, left as they are')

/**
 * How a fold stores the task's artifacts: undefined, in the snapshot (small ones, as before
 * migration 8); else apart from it, as they were at `version`, written out again only when they
 * lag the snapshot by more than SNAPSHOT_EVERY events. A run's batch of artifacts and its last
 * status is then written once, in its events row, not again in the task row.
 */
export const storedArtifacts = (
  row: SnapshotRow,
  folded: FoldedRow,
  fold: { version: number; changedAt: number | undefined; written: number },
): { json: string | typeof KEEP; version: number } | undefined => {
  const { task } = folded
  // An upper bound on the artifacts' JSON: the stored ones (or the snapshot holding them), and
  // the events that may have changed them.
  const bytes = (row.artifacts ?? row.snapshot).length + (row.tail?.length ?? 0) + fold.written
  if (bytes < ARTIFACTS_APART_BYTES) return undefined
  const storedAt = row.artifacts_version ?? fold.version
  if (fold.changedAt !== undefined && task.version - storedAt > SNAPSHOT_EVERY)
    return { json: JSON.stringify(task.artifacts), version: task.version }
  const version = fold.changedAt === undefined ? task.version : fold.changedAt - 1
  if (row.artifacts !== null) return { json: KEEP, version }
  return { json: JSON.stringify(folded.storedArtifacts!), version }
}
