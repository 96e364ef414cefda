import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'
import type { CallerSignal } from '../engine/caller-signal.ts'
import { SwitchboardError } from '../model/errors.ts'
import type { JsonText } from '../model/json.ts'
import { TransientMap } from '../model/transient-map.ts'

/**
 * Aborted when the client goes away before the response is complete. A response that finished
 * normally also emits 'close'; aborting then would wake nobody. No AbortController: every
 * blocking send makes one of these, and its listeners (the watch, the wait) are one or two.
 */
class Disconnect implements CallerSignal {
  #aborted = false
  #listeners: (() => void)[] = []

  constructor(res: ServerResponse) {
    // `on`, not `once`: a response closes once, and once() wraps each listener in three objects
    // that an open stream keeps (bench/HISTORY.md, _Memory per open stream_).
    res.on('close', () => {
      if (res.writableFinished) return
      this.#aborted = true
      const listeners = this.#listeners
      this.#listeners = []
      for (const listener of listeners) listener()
    })
  }

  get aborted(): boolean {
    return this.#aborted
  }

  /** As on an AbortSignal, a listener added after the abort is never called. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners.indexOf(listener)
    if (at !== -1) this.#listeners.splice(at, 1)
  }
}

export const disconnectSignal = (res: ServerResponse): CallerSignal => new Disconnect(res)

export interface SseFrame {
  /** The SSE `id:` (the task's event sequence). */
  id?: number
  event?: string
  /** JSON text: one line, so one `data:` line, written as it is (no frame's data is scanned). */
  data: JsonText
}

const encode = (frame: SseFrame): string => {
  let out = frame.id === undefined ? '' : `id: ${frame.id}\n`
  if (frame.event !== undefined) {
    if (/[\r\n]/.test(frame.event)) throw new TypeError('an SSE event name cannot contain a line break')
    out += `event: ${frame.event}\n`
  }
  return `${out}data: ${frame.data}\n\n`
}

/** Told once when a stream's connection closes (the client went away, or the stream ended). */
export interface CloseListener {
  closed(): void
}

/**
 * The stream each open response belongs to, for the one `close` listener every stream shares: a
 * closure of its own would be kept, with its scope, for as long as the stream is open.
 */
const streamOf = new WeakMap<ServerResponse, SseStream>()

/**
 * A server-sent event stream written straight to the socket: no framework in the per-event path.
 * `send` reports backpressure so the producer waits for `drained` instead of buffering without
 * bound; a client that stays backpressured past `stallMs` is dropped.
 */
export class SseStream {
  readonly #res: ServerResponse
  readonly #heartbeats: Heartbeats
  #lastWrite = Date.now()
  #closed = false
  /**
   * The socket, corked until this tick ends (or the opening hold's last turn). The socket and not
   * the response: from Node 22 a corked response holds its chunks itself, and its end() writes the
   * end of the body before them.
   */
  #corked: Socket | null = null
  /** Whether this tick's flush is scheduled. */
  #inTick = false
  /**
   * The frames of this tick, written as one chunk when it ends: each write of a chunked response
   * is four buffers (size, CRLF, data, CRLF), so a batch of twelve events was 48 in one writev.
   */
  #pending = ''
  #onClose: CloseListener | undefined
  ping: () => SseFrame | string

  constructor(res: ServerResponse, heartbeats: Heartbeats, ping: () => SseFrame | string) {
    this.#res = res
    this.#heartbeats = heartbeats
    this.ping = ping
  }

  /**
   * Sends the response head; call once, before the first frame. The head leaves when this tick
   * ends, with the frames written in it (a stream's first item is in one packet with its head);
   * with `holdTurns`, when that many more turns of the event loop have passed, with the frames
   * written in them, or with the end of the stream if it comes first.
   * `onClose` is told once when the connection closes (the client went away, or the stream ended):
   * a producer waiting for events learns it there, with no AbortSignal of its own.
   */
  open(
    options: { headers?: Record<string, string>; onClose?: CloseListener; holdTurns?: number } = {},
  ): void {
    this.#corkForTick(options.holdTurns ?? 0)
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...options.headers,
    })
    this.#res.flushHeaders()
    this.#onClose = options.onClose
    streamOf.set(this.#res, this)
    // `on`, not `once`: see Disconnect.
    this.#res.on('close', SseStream.#responseClosed)
    // Gone before the head was written: 'close' has been emitted already.
    if (this.#res.destroyed) {
      this.#connectionClosed()
      return
    }
    this.#heartbeats.add(this)
  }

  static readonly #responseClosed = function (this: ServerResponse): void {
    const stream = streamOf.get(this)
    if (stream) stream.#connectionClosed()
  }

  #connectionClosed(): void {
    this.#markClosed()
    streamOf.delete(this.#res)
    const onClose = this.#onClose
    this.#onClose = undefined
    onClose?.closed()
  }

  get closed(): boolean {
    return this.#closed
  }

  /** The request this stream answers (the metrics tell streams apart by the route it matched). */
  get request(): ServerResponse['req'] {
    return this.#res.req
  }

  get idleSince(): number {
    return this.#lastWrite
  }

  /** Writes one frame; false when the socket buffer is full (await `drained()`). */
  send(frame: SseFrame): boolean {
    return this.write(encode(frame))
  }

  /**
   * Writes a raw chunk (a comment line, or pre-encoded frames). Frames written in one tick (a batch
   * of events committed together) leave as one chunk, in one packet with the head if it is still
   * there: the socket is corked until the tick ends. The answer is the socket buffer's state.
   */
  write(chunk: string): boolean {
    if (this.#closed) return false
    this.#corkForTick()
    this.#pending += chunk
    // A tick's frames are held up to a socket buffer's worth: past it they go, and say if it is full.
    return this.#pending.length < this.#res.writableHighWaterMark
      ? !this.#res.writableNeedDrain
      : this.#flush()
  }

  #flush(): boolean {
    const pending = this.#pending
    this.#pending = ''
    return this.#res.write(pending)
  }

  /** Corks the socket until this tick ends, or until `holdTurns` more turns of the loop have. */
  #corkForTick(holdTurns = 0): void {
    if (this.#inTick) return
    this.#inTick = true
    this.#lastWrite = Date.now()
    this.#corked = this.#res.socket
    this.#corked?.cork()
    if (holdTurns > 0) this.#uncorkAfter(holdTurns)
    else process.nextTick(() => this.#uncork())
  }

  #uncorkAfter(turns: number): void {
    setImmediate(() => (turns > 1 ? this.#uncorkAfter(turns - 1) : this.#uncork()))
  }

  #uncork(): void {
    this.#inTick = false
    const socket = this.#corked
    this.#corked = null
    if (!this.#closed && this.#pending !== '') this.#flush()
    socket?.uncork()
  }

  drained(stallMs: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer)
        this.#res.off('drain', onDrain)
        this.#res.off('close', onClose)
        if (!ok) this.#drop()
        resolve(ok)
      }
      const onDrain = (): void => done(true)
      const onClose = (): void => done(false)
      const timer = setTimeout(() => done(false), stallMs)
      this.#res.once('drain', onDrain)
      this.#res.once('close', onClose)
    })
  }

  heartbeat(): void {
    const ping = this.ping()
    this.write(typeof ping === 'string' ? ping : encode(ping))
  }

  /**
   * Ends the response. This tick's frames leave with the end of the body, in one packet: the
   * response's end() uncorks the socket fully, so the tick's own uncork has nothing left to do.
   */
  end(): void {
    if (this.#closed) return
    const pending = this.#pending
    this.#markClosed()
    this.#corked = null
    // An empty string is no chunk: end('') is end().
    this.#res.end(pending)
  }

  /**
   * Closes the connection of a client that stopped reading: end() would queue the FIN behind the
   * unread bytes, keeping the socket and its buffers for as long as the client stays silent.
   */
  #drop(): void {
    if (this.#closed) return
    this.#markClosed()
    this.#res.destroy()
  }

  #markClosed(): void {
    this.#closed = true
    this.#pending = ''
    this.#heartbeats.delete(this)
  }
}

/**
 * One timer for all open streams: each gets a ping after `intervalMs` without a write. Ten
 * thousand streams cost one interval, not ten thousand.
 */
export class Heartbeats {
  readonly #streams = new TransientMap<SseStream, true>()
  readonly #intervalMs: number
  #timer: NodeJS.Timeout | undefined

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs
  }

  add(stream: SseStream): void {
    this.#streams.set(stream, true)
    if (!this.#timer) {
      const tick = Math.max(10, Math.min(1000, Math.floor(this.#intervalMs / 4)))
      this.#timer = setInterval(() => this.#beat(), tick)
      this.#timer.unref()
    }
  }

  delete(stream: SseStream): void {
    this.#streams.delete(stream)
    if (this.#streams.size === 0 && this.#timer) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }

  get size(): number {
    return this.#streams.size
  }

  /** The streams open now (read at metrics scrape time). */
  open(): Iterable<SseStream> {
    return this.#streams.keys()
  }

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const stream of this.#streams.keys()) stream.end()
  }

  #beat(): void {
    const due = Date.now() - this.#intervalMs
    for (const stream of this.#streams.keys()) if (stream.idleSince <= due) stream.heartbeat()
  }
}

/** Writes frames to the stream as they come, waiting out backpressure; ends the stream when they end. */
export const pipeFrames = async (
  stream: SseStream,
  frames: AsyncIterable<SseFrame>,
  stallMs: number,
): Promise<void> => {
  try {
    for await (const frame of frames) {
      if (stream.closed) break
      if (!stream.send(frame) && !(await stream.drained(stallMs))) break
    }
  } finally {
    stream.end()
  }
}

/** `Last-Event-ID`: the sequence of the last event the client holds (undefined when absent). */
export const lastEventId = (request: FastifyRequest): number | undefined => {
  const header = request.headers['last-event-id']
  if (header === undefined || header === '') return undefined
  const value = Number(header)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new SwitchboardError(
      'INVALID_REQUEST',
      `Last-Event-ID must be a non-negative integer, got "${String(header).slice(0, 40)}"`,
    )
  }
  return value
}
