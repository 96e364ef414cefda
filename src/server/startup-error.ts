/**
 * Why a server could not start, by class: the CLI gives each class its own exit status
 * (docs/cli.md), so a supervisor can tell a full or read-only disk from a damaged database.
 */
export type StartupFailure = 'DATA_DIR_UNUSABLE' | 'DATABASE_UNOPENABLE' | 'DATABASE_CORRUPT'

/** A start-up failure whose message names the path, the cause and what to do. */
export class StartupError extends Error {
  readonly failure: StartupFailure

  constructor(failure: StartupFailure, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StartupError'
    this.failure = failure
  }
}

/** System error codes in words: the operator reads the cause, not the errno. */
const CAUSES: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'the path or a part of it is a file, not a directory',
  EEXIST: 'a file of that name is in the way',
  ENOENT: 'a directory cannot be created there',
  ENOSPC: 'the disk is full',
  SQLITE_CANTOPEN: 'SQLite cannot open or create the file (is it a directory, or unreadable?)',
  SQLITE_READONLY: 'the file is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_FULL: 'the disk is full',
}

/** The cause of a system or SQLite error in words, with its code. */
export const causeOf = (error: unknown): string => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const words = typeof code === 'string' ? CAUSES[code] : undefined
  if (words) return `${words} (${code})`
  return typeof message === 'string' ? message : String(error)
}

const CORRUPT_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB'])

/** An error opening the SQLite database `file`, as the start-up failure it is. */
export const databaseStartupError = (file: string, error: unknown): StartupError => {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && CORRUPT_CODES.has(code))
    return new StartupError(
      'DATABASE_CORRUPT',
      `the database ${file} is corrupt (${causeOf(error)}): restore it from a backup, or move it ` +
        'and its -wal and -shm files aside to start with an empty database',
      { cause: error },
    )
  return new StartupError(
    'DATABASE_UNOPENABLE',
    `cannot open the database ${file}: ${causeOf(error)}; check that it is a readable and writable file, ` +
      'or choose another --data directory',
    { cause: error },
  )
}
