import type { JsonValue } from '@bufbuild/protobuf'
import { type ClientReadableStream, Metadata, type ServiceError } from '@grpc/grpc-js'
import { StreamResponseSchema } from '../../dialects/a2a/wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { EVENT_SEQ_KEY, GRPC_METADATA } from '../../dialects/a2a/wire/grpc-service.ts'
import { isObject } from '../../model/json.ts'
import { ClientError } from '../errors.ts'
import type { StreamFrame } from '../types.ts'
import { decodeStreamResponse } from './a2a-codec.ts'
import { decodeAnswer, fromGrpcError } from './a2a-grpc-wire.ts'

/** Messages held before the call is paused (HTTP/2 flow control then holds the server back). */
const HIGH_WATER = 64

/** Our server's event sequence, which a statusUpdate/artifactUpdate carries in its metadata: the frame id. */
const eventSeqOf = (response: JsonValue): string | undefined => {
  if (!isObject(response)) return undefined
  for (const name of ['statusUpdate', 'artifactUpdate']) {
    const update = response[name]
    const metadata = isObject(update) ? update.metadata : undefined
    if (!isObject(metadata)) continue
    const seq = metadata[EVENT_SEQ_KEY]
    if (typeof seq === 'number' && Number.isSafeInteger(seq)) return String(seq)
    if (typeof seq === 'string' && /^\d+$/.test(seq)) return seq
  }
  return undefined
}

/**
 * One server-streaming call, read as the client's stream frames. Every listener is attached at
 * once, so nothing the call emits before the reader starts is lost (grpc-js emits a failure as an
 * 'error' event right after ending the stream; an unheard one would crash the process).
 */
export class GrpcEventStream {
  readonly #call: ClientReadableStream<Buffer>
  readonly #what: string
  readonly #queue: Buffer[] = []
  #ended = false
  #failure: ServiceError | undefined
  #wake: (() => void) | undefined
  #head: Metadata | undefined

  constructor(call: ClientReadableStream<Buffer>, what: string) {
    this.#call = call
    this.#what = what
    call.on('metadata', (metadata: Metadata) => {
      this.#head = metadata
      this.#notify()
    })
    call.on('data', (bytes: Buffer) => {
      this.#queue.push(bytes)
      if (this.#queue.length >= HIGH_WATER) call.pause()
      this.#notify()
    })
    call.on('error', (error: ServiceError) => {
      this.#failure = error
      this.#notify()
    })
    // 'end' comes once every message pushed before the status has been delivered.
    call.on('end', () => {
      this.#ended = true
      this.#notify()
    })
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #next(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }

  cancel(): void {
    if (!this.#ended) this.#call.cancel()
  }

  /**
   * Waits for the response head (the initial metadata), as an HTTP stream waits for its status
   * line; a call that fails first rejects with its error. `timeoutMs` bounds the wait only.
   */
  async head(options: { signal: AbortSignal; timeoutMs?: number }): Promise<Metadata> {
    const { signal, timeoutMs } = options
    let timedOut = false
    const timer =
      timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? setTimeout(() => {
            timedOut = true
            this.cancel()
          }, timeoutMs)
        : undefined
    const onAbort = (): void => this.cancel()
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    try {
      for (;;) {
        if (timedOut) throw new ClientError('TIMEOUT', `${this.#what}: no answer within ${timeoutMs} ms`)
        if (signal.aborted) throw abortedError(signal, this.#what)
        if (this.#head) return this.#head
        if (this.#failure) throw fromGrpcError(this.#failure, this.#what)
        // A stream that ends with no head and no failure answered nothing: an empty stream.
        if (this.#ended || this.#queue.length > 0) return new Metadata()
        await this.#next()
      }
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
  }

  /** The frames, in order; the call is cancelled when the reader stops early or the signal fires. */
  async *frames(head: Metadata, signal: AbortSignal): AsyncGenerator<StreamFrame> {
    const onAbort = (): void => {
      this.cancel()
      this.#notify()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const snapshotSeq = head.get(GRPC_METADATA.eventSeq)[0]
    let first = true
    try {
      for (;;) {
        if (signal.aborted) throw abortedError(signal, this.#what)
        const bytes = this.#queue.shift()
        if (bytes) {
          if (this.#queue.length < HIGH_WATER / 2 && this.#call.isPaused()) this.#call.resume()
          const response = decodeAnswer(StreamResponseSchema, bytes, this.#what)
          const item = decodeStreamResponse(response)
          let id = eventSeqOf(response)
          if (first && item?.kind === 'task' && typeof snapshotSeq === 'string' && /^\d+$/.test(snapshotSeq))
            id = snapshotSeq
          first = false
          if (item) yield id === undefined ? { item } : { id, item }
          continue
        }
        if (this.#ended) {
          if (this.#failure) throw fromGrpcError(this.#failure, this.#what)
          return
        }
        await this.#next()
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
      this.cancel()
    }
  }
}

const abortedError = (signal: AbortSignal, what: string): ClientError =>
  signal.reason instanceof ClientError
    ? signal.reason
    : new ClientError('ABORTED', `${what}: aborted`, { cause: signal.reason })
