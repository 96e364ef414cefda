import { isDeepStrictEqual } from 'node:util'
import { OUTPUT_ARTIFACT_NAME } from '../dialects/a2a/wire/extensions.ts'
import { isObject } from '../model/json.ts'
import type { RemoteArtifact, RemoteTask, TaskUpdate, WireItem } from './types.ts'

/**
 * Folds decoded items (from a stream, a poll or a push) into the task as this follower knows it,
 * and says which updates they make. One folder lives as long as one `events()` iteration, across
 * its reconnects, so an artifact or a snapshot seen twice is reported once.
 */
export class TaskFolder {
  #task: RemoteTask
  readonly #artifacts = new Map<string, RemoteArtifact>()
  readonly #fetchArtifact: (id: string) => Promise<RemoteArtifact | undefined>
  #snapshots = 0

  constructor(task: RemoteTask, fetchArtifact: (id: string) => Promise<RemoteArtifact | undefined>) {
    this.#task = structuredClone(task)
    this.#fetchArtifact = fetchArtifact
  }

  get task(): RemoteTask {
    return this.#task
  }

  async apply(item: WireItem): Promise<TaskUpdate[]> {
    switch (item.kind) {
      case 'task':
        return this.#applyTask(item.task, item.snapshot)
      case 'status': {
        const task = this.#next()
        task.state = item.state
        if (item.at) task.updatedAt = item.at
        for (const key of ['prompt', 'inputSchema', 'error', 'message'] as const) {
          if (item[key] === undefined) delete task[key]
          else (task as unknown as Record<string, unknown>)[key] = item[key]
        }
        // The output artifact may have come in a snapshot taken before COMPLETED (it is not sent
        // again), so the output is derived here from the artifacts already known.
        if (task.state === 'COMPLETED' && task.output === undefined) {
          const output = task.artifacts?.find((a) => a.name === OUTPUT_ARTIFACT_NAME && a.type === 'json')
          if (output?.type === 'json' && isObject(output.value)) task.output = output.value
        }
        this.#task = task
        return [{ type: 'status', task: this.#task }]
      }
      case 'log':
        return [{ type: 'log', level: item.level, message: item.message, at: item.at }]
      case 'artifact': {
        if (item.output) this.#task = { ...this.#task, output: item.output }
        return item.append
          ? this.#appendChunk(item.artifact, item.lastChunk === true)
          : this.#noteArtifact(item.artifact)
      }
      case 'artifact-ref': {
        if (this.#artifacts.has(item.artifactId)) return []
        const artifact = await this.#fetchArtifact(item.artifactId)
        return artifact ? this.#noteArtifact(artifact) : []
      }
      case 'ping':
        return []
    }
  }

  /**
   * A whole task. A Clawpedia status frame is a state change, always reported. An A2A snapshot
   * (the first item of a subscription, or of each reconnect to a server without resume) is
   * reported the first time and then only when it differs, with the artifacts not seen yet.
   */
  #applyTask(incoming: RemoteTask, snapshot: boolean): TaskUpdate[] {
    const previous = this.#task
    const task: RemoteTask = { ...incoming }
    if (!task.artifacts) task.artifacts = [...this.#artifacts.values()]
    if (!task.contextId && previous.contextId) task.contextId = previous.contextId
    if (!task.input && previous.input) task.input = previous.input
    const first = this.#snapshots++ === 0
    const changed = previous.state !== task.state || previous.updatedAt !== task.updatedAt
    this.#task = task
    // Artifacts first: a status may end the iteration, and what the task made belongs before it.
    const updates: TaskUpdate[] = []
    if (snapshot)
      for (const artifact of incoming.artifacts ?? []) updates.push(...this.#noteArtifact(artifact))
    if (!snapshot || first || changed) updates.push({ type: 'status', task: this.#task })
    return updates
  }

  /** Records an artifact; an identical repeat (a replayed id-less frame, a snapshot) is no update. */
  #noteArtifact(artifact: RemoteArtifact): TaskUpdate[] {
    const seen = this.#artifacts.get(artifact.id)
    if (seen && isDeepStrictEqual(seen, artifact)) return []
    this.#keep(artifact)
    return [{ type: 'artifact', artifact }]
  }

  /** The artifact as now known: in the task's list, in place of what it was. */
  #keep(artifact: RemoteArtifact): void {
    const had = this.#artifacts.has(artifact.id)
    this.#artifacts.set(artifact.id, artifact)
    const list = this.#task.artifacts ?? []
    const artifacts = had
      ? list.map((a) => (a.id === artifact.id ? artifact : a))
      : [...list.filter((a) => a.id !== artifact.id), artifact]
    this.#task = { ...this.#task, artifacts }
  }

  /**
   * A piece of a streamed artifact: text joins the text seen so far (one piece of an artifact not
   * seen in this iteration, as after `events({ after })`, starts it); any other part type replaces
   * what came before. Always an update, even an empty last piece: it says the artifact is complete.
   * Pieces are never applied twice: the stream's ids drop repeats.
   */
  #appendChunk(piece: RemoteArtifact, last: boolean): TaskUpdate[] {
    if (piece.type !== 'text' && piece.type !== 'log') {
      this.#keep(piece)
      return [{ type: 'artifact', artifact: piece }]
    }
    const seen = this.#artifacts.get(piece.id)
    const artifact = seen && seen.type === piece.type ? { ...seen, text: seen.text + piece.text } : piece
    this.#keep(artifact)
    return [{ type: 'artifact', artifact, chunk: { text: piece.text, last } }]
  }

  #next(): RemoteTask {
    return { ...this.#task }
  }
}
