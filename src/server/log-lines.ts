import { writeSync } from 'node:fs'
import type { DestinationStream } from 'pino'

/** How a line reaches its file: `fs.writeSync`'s shape, replaceable in tests. */
export type WriteSync = (fd: number, data: string | Uint8Array, offset?: number) => number

/** How long a write waits, each time, for a full pipe to take it (EAGAIN). */
const BUSY_WAIT_MS = 10
/** The tries a write gets on a pipe that stays full: then its lines are dropped, not waited for without end. */
const BUSY_TRIES = 100
const sleeper = new Int32Array(new SharedArrayBuffer(4))

/** Lines gathered past this many characters are written at once, not at the end of the turn. */
const GATHERED_MAX = 64 * 1024
/** pino's level for `error`: such a line (and `fatal`) is written before its call returns. */
const ERROR_LEVEL = 50
/** Set on a destination, pino tells it each line's level before the line (`lastLevel`). */
const PINO_METADATA = Symbol.for('pino.metadata')

/** The gathered lines of every destination that has some: written at exit if the turn never ends. */
const unwritten = new Set<() => void>()
let exitHooked = false
const writeAllAtExit = (): void => {
  for (const writeGathered of unwritten) writeGathered()
}

/**
 * The default logger's destination: the lines logged in one turn of the event loop are written
 * together at its end, one write instead of one a line (a write costs 2–3 µs of CPU on a virtual
 * machine, and a request logs about three lines: bench/log-cost.ts), in the order they were
 * logged. An `error` or `fatal` line is written before its call returns, with the lines before it,
 * and whatever is gathered is written when the process exits (an uncaught exception included), so
 * only a process killed outright loses lines: those of its last turn. A short write (a
 * non-blocking pipe that took part of the lines) writes the rest; a full pipe is waited for, a
 * little at a time. Lines that cannot be written are dropped, and the first such failure is
 * reported as a process warning: a request never fails because its log line could not be written.
 */
export const logLines = (options: {
  fd: number
  writeSync?: WriteSync
}): DestinationStream & { flush(callback?: (error?: Error) => void): void } => {
  const { fd } = options
  const write = options.writeSync ?? (writeSync as WriteSync)
  let warned = false
  let gathered = ''
  const writeGathered = (): void => {
    const lines = gathered
    gathered = ''
    if (lines === '') return
    try {
      writeLines(fd, lines, write)
    } catch (error) {
      if (warned) return
      warned = true
      process.emitWarning(
        `log lines to file descriptor ${fd} are being dropped: ${(error as Error).message}`,
        'SwitchboardLogWarning',
      )
    }
  }
  // Scheduled for the end of this turn exactly while it is in `unwritten`.
  const endOfTurn = (): void => {
    unwritten.delete(writeGathered)
    writeGathered()
  }
  const destination = {
    [PINO_METADATA]: true,
    lastLevel: 0,
    write(line: string): void {
      gathered += line
      if (destination.lastLevel >= ERROR_LEVEL || gathered.length >= GATHERED_MAX) {
        writeGathered()
        return
      }
      if (unwritten.has(writeGathered)) return
      unwritten.add(writeGathered)
      if (!exitHooked) {
        exitHooked = true
        process.on('exit', writeAllAtExit)
      }
      setImmediate(endOfTurn)
    },
    /** pino's `logger.flush()`: what is gathered, written now. */
    flush(callback?: (error?: Error) => void): void {
      writeGathered()
      callback?.()
    },
  }
  return destination
}

const writeLines = (fd: number, lines: string, write: WriteSync): void => {
  let at = attempt(write, fd, lines, 0)
  const size = Buffer.byteLength(lines)
  if (at === size) return
  // A short write: the rest of the bytes, from where it stopped.
  const bytes = Buffer.from(lines)
  while (at < size) at += attempt(write, fd, bytes, at)
}

/** One write, tried again while the pipe is full. */
const attempt = (write: WriteSync, fd: number, data: string | Uint8Array, offset: number): number => {
  for (let tries = 1; ; tries++) {
    try {
      return typeof data === 'string' ? write(fd, data) : write(fd, data, offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || tries >= BUSY_TRIES) throw error
      Atomics.wait(sleeper, 0, 0, BUSY_WAIT_MS)
    }
  }
}
