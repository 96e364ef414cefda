/**
 * Artifacts: a task's deliverables. The five Clawpedia types are the model; A2A renders each as
 * an Artifact of Parts. File bytes never travel in events or task rows — the store keeps them
 * beside the artifact and serves them from the content endpoint — except a small file's, which
 * is kept inline (`raw`) so that A2A can send it in the part itself.
 */
export const ARTIFACT_TYPES = ['file', 'log', 'url', 'text', 'json'] as const
export type ArtifactType = (typeof ARTIFACT_TYPES)[number]

export type ArtifactBody =
  | { type: 'text'; text: string; mediaType?: string }
  | { type: 'log'; text: string }
  | { type: 'json'; value: unknown }
  | { type: 'url'; url: string; mediaType?: string; filename?: string }
  | {
      type: 'file'
      filename: string
      mediaType: string
      size: number
      /** The bytes, base64, of a file small enough to travel inline (the engine's `inlineFileBytes`). */
      raw?: string
    }

/**
 * A streamed artifact (`ctx.artifactStream`): a text artifact that opens empty and grows by
 * `chunk` events. `chunks` counts those folded in so far (a replay's position); `done` is set by
 * the last one.
 */
export interface ArtifactStreamState {
  chunks: number
  done: boolean
}

export type Artifact = ArtifactBody & {
  id: string
  taskId: string
  name?: string
  description?: string
  createdAt: string
  stream?: ArtifactStreamState
}

/** The Content-Type the content endpoint answers with, per artifact type. */
export const contentTypeOf = (artifact: Artifact): string => {
  switch (artifact.type) {
    case 'file':
      return artifact.mediaType
    case 'json':
      return 'application/json'
    case 'url':
      return 'text/uri-list'
    case 'text':
      return artifact.mediaType ?? 'text/plain; charset=utf-8'
    case 'log':
      return 'text/plain; charset=utf-8'
  }
}
