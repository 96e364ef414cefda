import { artifactIndex } from '../model/fold.ts'
import type { Scope } from '../model/task.ts'
import type { Store, StoredArtifact } from '../store/contract.ts'

/**
 * An artifact as it stands now, with its bytes, if the caller may see it (`agent`: only one of
 * that agent's tasks). Two kinds are not whole in their row: a streamed artifact's row is the
 * artifact as it opened (rewriting it on every chunk would cost its whole size per chunk), so it
 * is taken from the task, the fold of its chunks; a small file keeps its bytes inline (`raw`)
 * rather than beside it.
 */
export const readArtifact = async (
  store: Store,
  scope: Scope & { agent?: string },
  artifactId: string,
): Promise<StoredArtifact | undefined> => {
  const stored = await store.getArtifact(scope, artifactId)
  if (!stored) return undefined
  const { artifact } = stored
  const task =
    scope.agent !== undefined || artifact.stream ? await store.getTask(scope, artifact.taskId) : undefined
  if (scope.agent !== undefined && task?.agent !== scope.agent) return undefined
  if (artifact.stream && task) stored.artifact = task.artifacts[artifactIndex(task, artifactId)] ?? artifact
  if (artifact.type === 'file' && artifact.raw !== undefined && stored.bytes === undefined)
    stored.bytes = Buffer.from(artifact.raw, 'base64')
  return stored
}
