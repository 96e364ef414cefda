import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import { SQLITE_DRIVER_PATH } from './driver.ts'

/** How often, at most, the WAL's new frames are copied into the database file (off the main thread). */
const CHECKPOINT_EVERY_MS = 100
/**
 * A WAL of more frames than this (64 MiB of 4 KiB pages) is checkpointed once on the main thread
 * too: under writes that never pause, the worker's checkpoints never catch up with the last frame,
 * and the WAL starts over only after a checkpoint that did, so it would grow without end.
 */
const WAL_BOUND_FRAMES = 16_384
/** Each WAL frame is its page and a 24-byte header. */
const WAL_FRAME_HEADER_BYTES = 24
/**
 * A WAL that starts over keeps its file up to its bound and a quarter (PRAGMA journal_size_limit),
 * so a store under steady writes rewrites the same file pages each cycle. Cut back smaller, the
 * file grew again every cycle, and on ext4 each new block of it cost an allocation and the zeroing
 * of its unaligned frames' edges: the WAL's writes took twice the CPU (12.6 % of a send's main
 * thread against 6.7 % in one `perf` profile of each).
 */
const keptBytes = (boundFrames: number, pageSize: number): number =>
  Math.ceil(boundFrames * 1.25) * (pageSize + WAL_FRAME_HEADER_BYTES)

/**
 * The worker's code: its own connection to the file, one PASSIVE checkpoint per request (it never
 * waits for the writer, and the writer never waits for it), closed before the thread ends.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driverPath)
const db = new Database(workerData.filename, { fileMustExist: true })
db.pragma('synchronous = ' + workerData.synchronous)
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close()
    parentPort.close()
    return
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)')
    parentPort.postMessage({ frames: result.log })
  } catch (error) {
    parentPort.postMessage({ failure: String((error && error.message) || error) })
  }
})
`

export interface CheckpointerOptions {
  filename: string
  synchronous: 'NORMAL' | 'FULL'
  /** Told once if the worker fails: the store goes back to SQLite's own checkpoints. */
  onFailure?: (error: Error) => void
  /** WAL frames past which the main thread checkpoints too; default WAL_BOUND_FRAMES. */
  walBoundFrames?: number
  /** The least time between two checkpoints, and from opening to the first; default CHECKPOINT_EVERY_MS. */
  everyMs?: number
}

/**
 * Copies the WAL into the database file on a worker thread. SQLite's automatic checkpoint runs in
 * the COMMIT that crosses 1,000 WAL frames, on the thread that committed: with
 * `synchronous=NORMAL` it syncs the WAL and the database file, and the event loop waits on the
 * disk. Here the main connection's automatic checkpoint is off and a second connection does the
 * copying; the durability of each commit is unchanged (a commit is durable in the WAL, as before).
 * If the worker fails, the main connection's automatic checkpoint is turned back on. The worker
 * starts with the first checkpoint, no sooner than `everyMs` after opening: a store that is done
 * writing by then (a CLI command, a test) never starts one, and its close checkpoints as before.
 */
export class Checkpointer {
  readonly #db: Database.Database
  readonly #options: CheckpointerOptions
  #worker: Worker | undefined
  #running = false
  /** Who waits for the checkpoint under way (settled()). */
  #waiting: (() => void)[] = []
  #askedAt = performance.now()
  readonly #everyMs: number
  readonly #walBoundFrames: number
  /** The worker saw the WAL past WAL_BOUND_FRAMES: the next commit checkpoints on this thread. */
  #behind = false
  #stopped = false

  constructor(db: Database.Database, options: CheckpointerOptions) {
    this.#db = db
    this.#options = options
    this.#everyMs = options.everyMs ?? CHECKPOINT_EVERY_MS
    this.#walBoundFrames = options.walBoundFrames ?? WAL_BOUND_FRAMES
    db.pragma('wal_autocheckpoint = 0')
    const pageSize = db.pragma('page_size', { simple: true }) as number
    db.pragma(`journal_size_limit = ${keptBytes(this.#walBoundFrames, pageSize)}`)
  }

  /** After each COMMIT: new frames are in the WAL. */
  committed(): void {
    if (this.#stopped) return
    if (this.#behind) {
      this.#behind = false
      this.#db.pragma('wal_checkpoint(PASSIVE)')
    }
    const now = performance.now()
    if (this.#running || now - this.#askedAt < this.#everyMs) return
    this.#askedAt = now
    this.#running = true
    this.#start().postMessage('checkpoint')
  }

  /** Lets the worker finish its checkpoint and close its connection; the store closes its own after. */
  async stop(): Promise<void> {
    this.#stopped = true
    const worker = this.#worker
    this.#worker = undefined
    if (!worker) return
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.ref()
    worker.postMessage('stop')
    await exited
  }

  #start(): Worker {
    if (this.#worker) return this.#worker
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Plain JavaScript: the parent's loaders (tsx in development) are not needed there.
      execArgv: [],
      workerData: {
        filename: this.#options.filename,
        synchronous: this.#options.synchronous,
        driverPath: SQLITE_DRIVER_PATH,
      },
    })
    worker.on('message', (answer: { frames: number } | { failure: string }) => {
      this.#running = false
      // A store left open does not keep the process alive between its checkpoints. Not before
      // the first answer: a process that ended while the worker was still loading the driver
      // died of a fatal error on Node 22 (napi_get_last_error_info in the driver's registration).
      if (!this.#stopped) worker.unref()
      if ('failure' in answer) this.#fail(new Error(`WAL checkpoint failed: ${answer.failure}`))
      else if (answer.frames > this.#walBoundFrames) this.#behind = true
      this.#settle()
    })
    worker.on('error', (error) => this.#fail(error))
    this.#worker = worker
    return worker
  }

  /** Resolves once no checkpoint is under way. */
  settled(): Promise<void> {
    if (!this.#running) return Promise.resolve()
    // Waited for, the worker must keep the event loop alive until it answers.
    this.#worker?.ref()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  #settle(): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (const resolve of waiting) resolve()
  }

  #fail(error: Error): void {
    this.#running = false
    this.#settle()
    if (this.#stopped) return
    this.#stopped = true
    const worker = this.#worker
    this.#worker = undefined
    if (this.#db.open) this.#db.pragma('wal_autocheckpoint = 1000')
    worker?.postMessage('stop')
    this.#options.onFailure?.(error)
  }
}
