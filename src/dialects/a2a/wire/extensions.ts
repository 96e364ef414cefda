import type { JsonObject } from '../../../model/events.ts'
import { isObject } from '../../../model/json.ts'

/**
 * What our server adds to the A2A shapes, and the client reads back: a marker object under one
 * `metadata` key (so it never collides with extension keys) holding log lines (`kind: 'log'`),
 * the answer's schema (`inputSchema`) or the task's error (`error`); and the task's output
 * object as the artifact named "output" with one data part.
 */
export const SWITCHBOARD_KEY = 'switchboard'

export const OUTPUT_ARTIFACT_NAME = 'output'

/** Our marker object in a message's, artifact's or part's metadata. */
export const switchboardMeta = (holder: unknown): JsonObject | undefined => {
  const metadata = isObject(holder) ? holder.metadata : undefined
  const ours = isObject(metadata) ? metadata[SWITCHBOARD_KEY] : undefined
  return isObject(ours) ? ours : undefined
}
