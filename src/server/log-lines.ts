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
 * after it was written (sonic-boom does, to keep what a short write left over): 4.7 µs a line
 * against 2.6 in a microbenchmark, and three lines a request (bench/README.md). A short write (a
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
  const written = retried(() => write(fd, line))
  const size = Buffer.byteLength(line)
  if (written === size) return
  // A short write: the rest of the line's bytes, from where it stopped.
  const bytes = Buffer.from(line)
  let at = written
  while (at < size) at += retried(() => write(fd, bytes, at))
}

const retried = (attempt: () => number): number => {
  for (let tries = 1; ; tries++) {
    try {
      return attempt()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || tries >= BUSY_TRIES) throw error
      Atomics.wait(sleeper, 0, 0, BUSY_WAIT_MS)
    }
  }
}
