import type { ArtifactSpec, ArtifactStream, ArtifactStreamSpec } from '../agent/context.ts'
import type { Artifact } from '../model/artifacts.ts'
import type { ChunkEvent, EventBody } from '../model/events.ts'
import type { Task } from '../model/task.ts'
import { ArtifactStreamWriter } from './artifact-stream.ts'
import { buildArtifact, buildStreamArtifact, storedBytesOf } from './build-artifact.ts'
import { LIMITS } from './limits.ts'

export interface RunArtifactsOptions {
  /** The task as claimed: its recorded artifacts are the replay's positions. */
  task: Task
  /** Queues a write behind the run's others (with a file's bytes); resolves once accepted. */
  accept: (body: EventBody, blob?: Uint8Array) => Promise<unknown>
  taskArtifactBytes?: number | undefined
  inlineFileBytes?: number | undefined
}

/**
 * A run's `ctx.artifact` and `ctx.artifactStream`: positions for replay (an artifact or stream
 * already recorded at a call's position is returned, not written again), the task's byte cap,
 * and the streams to end with the outcome.
 */
export class RunArtifacts {
  readonly #options: RunArtifactsOptions
  #seen = 0
  /** What the task's artifacts take so far: counted from the recorded ones at the first new one. */
  #bytes: number | undefined
  readonly #streams: ArtifactStreamWriter[] = []

  constructor(options: RunArtifactsOptions) {
    this.#options = options
  }

  async artifact(spec: ArtifactSpec): Promise<Artifact> {
    const recorded = this.#options.task.artifacts[this.#seen++]
    if (recorded) return recorded
    const { inlineFileBytes } = this.#options
    const { artifact, bytes } = buildArtifact(this.#options.task.id, spec, {
      ...(inlineFileBytes !== undefined && { inlineFileBytes }),
    })
    this.#reserve(storedBytesOf(artifact))
    await this.#options.accept({ kind: 'artifact', artifact }, bytes)
    return artifact
  }

  async stream(spec: ArtifactStreamSpec | undefined): Promise<ArtifactStream> {
    const recorded = this.#options.task.artifacts[this.#seen++]
    const artifact = recorded ?? buildStreamArtifact(this.#options.task.id, spec)
    const stream = new ArtifactStreamWriter(
      { accept: (chunk) => this.#options.accept(chunk), reserve: (bytes) => this.#reserve(bytes) },
      artifact,
    )
    this.#streams.push(stream)
    if (!recorded) await this.#options.accept({ kind: 'artifact', artifact })
    return stream
  }

  /** The last chunk of every stream the handler left open: written with the run's outcome. */
  closeStreams(): ChunkEvent[] {
    return this.#streams.map((stream) => stream.close()).filter((chunk) => chunk !== undefined)
  }

  #reserve(bytes: number): void {
    const limit = this.#options.taskArtifactBytes ?? LIMITS.taskArtifactBytes
    this.#bytes ??= this.#options.task.artifacts.reduce((sum, a) => sum + storedBytesOf(a), 0)
    const total = this.#bytes + bytes
    if (total > limit)
      throw new RangeError(
        `the artifacts of a task are limited to ${limit} bytes in all; this one would make ${total}`,
      )
    this.#bytes = total
  }
}
