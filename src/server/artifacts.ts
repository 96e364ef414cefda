import { LIMITS } from '../engine/limits.ts'

/** How artifacts are sent (docs/limits.md). */
export interface ArtifactOptions {
  /**
   * A file artifact of at most this many bytes travels inline: A2A sends it as a `raw` part
   * (base64) in tasks, streams and webhooks; larger ones are `url` parts to the content endpoint.
   * Default LIMITS.inlineFileBytes (64 KiB), at most LIMITS.inlineArtifactBytes; 0 turns it off.
   * Decided when the artifact is recorded, so a task reads the same however the server restarts.
   */
  inlineFileBytes?: number
}

/** The inline size in force, or an Error naming the setting when it is out of range. */
export const inlineFileBytesOf = (options: ArtifactOptions | undefined): number => {
  const value = options?.inlineFileBytes ?? LIMITS.inlineFileBytes
  if (!Number.isSafeInteger(value) || value < 0 || value > LIMITS.inlineArtifactBytes) {
    throw new RangeError(
      `artifacts.inlineFileBytes must be a whole number from 0 to ${LIMITS.inlineArtifactBytes} (inline content is kept in the task's log), got ${String(value)}`,
    )
  }
  return value
}
