import type { ArtifactStream } from '../agent/context.ts'
import type { Artifact } from '../model/artifacts.ts'
import type { ChunkEvent } from '../model/events.ts'
import { LIMITS } from './limits.ts'

/** What a stream needs of its run: the write queue, and the task's artifact byte budget. */
export interface StreamHost {
  /** Queues the chunk behind the run's other writes; resolves once accepted. */
  accept(chunk: ChunkEvent): Promise<unknown>
  /** Counts `bytes` against the task's artifact cap, or throws RangeError past it. */
  reserve(bytes: number): void
}

/**
 * One streamed artifact of a run (`ctx.artifactStream`). Every piece is one `chunk` event through
 * the run's queue, so pieces keep their order among the handler's other calls and share its
 * batches (at token rates, a batch holds whatever came while the last one committed).
 *
 * Replay: the artifact as the task recorded it says how many chunks the stream already has; the
 * handler makes the same calls again, and the first that many are recognised by position and not
 * written twice. The byte count starts from the recorded text, so the limits hold across runs.
 */
export class ArtifactStreamWriter implements ArtifactStream {
  readonly id: string
  readonly #host: StreamHost
  /** Chunks already in the log when this run began: the calls that replay them write nothing. */
  readonly #recorded: number
  readonly #recordedDone: boolean
  /** Calls that write a chunk (non-empty appends, and end), made so far in this run. */
  #position = 0
  #chunks: number
  #bytes: number
  #ended = false

  constructor(host: StreamHost, artifact: Artifact) {
    this.id = artifact.id
    this.#host = host
    this.#recorded = artifact.stream?.chunks ?? 0
    // An artifact recorded at this position that is no stream (the handler changed) takes nothing.
    this.#recordedDone = artifact.stream ? artifact.stream.done : true
    this.#chunks = this.#recorded
    this.#bytes = artifact.type === 'text' ? Buffer.byteLength(artifact.text) : 0
  }

  /** Open: not ended by the handler, neither in this run nor in an earlier one. */
  get open(): boolean {
    return !this.#ended && !this.#recordedDone
  }

  append(text: string): Promise<void> {
    return this.#write(text, false)
  }

  end(text = ''): Promise<void> {
    return this.#write(text, true)
  }

  /** The chunk that ends the stream with the task's outcome, if the handler left it open. */
  close(): ChunkEvent | undefined {
    if (!this.open) return undefined
    this.#ended = true
    return { kind: 'chunk', artifactId: this.id, text: '', lastChunk: true }
  }

  async #write(given: string, last: boolean): Promise<void> {
    if (this.#ended) {
      if (last) return // ending twice is harmless
      throw new Error(`artifact stream ${this.id} has ended; nothing can be appended to it`)
    }
    const text = String(given)
    if (!last && text === '') return
    if (this.#position < this.#recorded) {
      this.#position += 1
      if (last) this.#ended = true
      return
    }
    if (this.#recordedDone)
      throw new Error(`artifact stream ${this.id} was ended by an earlier run of this task`)
    // An append leaves room for the last chunk: a stream can always be ended.
    if (this.#chunks + (last ? 1 : 2) > LIMITS.artifactChunks)
      throw new RangeError(
        `a streamed artifact is limited to ${LIMITS.artifactChunks} chunks, the last included`,
      )
    const bytes = Buffer.byteLength(text)
    if (this.#bytes + bytes > LIMITS.inlineArtifactBytes) {
      throw new RangeError(
        `a streamed artifact is limited to ${LIMITS.inlineArtifactBytes} bytes of text in all; this piece would make ${this.#bytes + bytes}`,
      )
    }
    this.#host.reserve(bytes)
    // Counted only once the piece is written: a call refused here writes nothing, and a replay
    // refuses it again at the same place.
    this.#position += 1
    this.#chunks += 1
    this.#bytes += bytes
    if (last) this.#ended = true
    await this.#host.accept({ kind: 'chunk', artifactId: this.id, text, lastChunk: last })
  }
}
