import { writeSync } from 'node:fs'
import type { DestinationStream } from 'pino'

/** How a line reaches its file: `fs.writeSync`'s shape, replaceable in tests. */
export type WriteSync = (fd: number, data: string | Uint8Array, offset?: number) => number

/** How long a line waits, each time, for a full pipe to take it (EAGAIN). */
const BUSY_WAIT_MS = 10
/** The tries a line gets on a pipe that stays full: then it is dropped, not waited for without end. */
const BUSY_TRIES = 100
const sleeper = new Int32Array(new SharedArrayBuffer(4))

/**
 * The default logger's destination: each line written to the file descriptor before the log call
 * returns, in order, as pino's default destination does, without copying every line into a Buffer
 * after it was written (sonic-boom does, to keep what a short write left over): 5.7 µs of CPU an
 * access line against 3.4 (bench/log-cost.ts), and a request writes three. A short write (a
 * non-blocking pipe that took part of the line) writes the rest; a full pipe is waited for, a
 * little at a time. A line that cannot be written is dropped, and the first such failure is
 * reported as a process warning: a request never fails because its log line could not be written.
 */
export const logLines = (options: { fd: number; writeSync?: WriteSync }): DestinationStream => {
  const { fd } = options
  const write = options.writeSync ?? (writeSync as WriteSync)
  let warned = false
  return {
    write(line: string): void {
      try {
        writeLine(fd, line, write)
      } catch (error) {
        if (warned) return
        warned = true
        process.emitWarning(
          `log lines to file descriptor ${fd} are being dropped: ${(error as Error).message}`,
          'SwitchboardLogWarning',
        )
      }
    },
  }
}

const writeLine = (fd: number, line: string, write: WriteSync): void => {
  let at = attempt(write, fd, line, 0)
  const size = Buffer.byteLength(line)
  if (at === size) return
  // A short write: the rest of the line's bytes, from where it stopped.
  const bytes = Buffer.from(line)
  while (at < size) at += attempt(write, fd, bytes, at)
}

/** One write, tried again while the pipe is full (no closure a line: this is every line's path). */
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
