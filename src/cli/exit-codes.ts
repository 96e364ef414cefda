import type { TaskState } from '../model/states.ts'

/** What the `switchboard` process exit status means; scripts switch on these. */
export const EXIT = {
  /** Done; a followed task COMPLETED. */
  OK: 0,
  /** A followed task ended FAILED, CANCELLED or REJECTED. */
  TASK_UNSUCCESSFUL: 1,
  /** The command line is wrong (unknown option, missing argument, bad JSON). */
  USAGE: 2,
  /** The agent, the server or a download's host could not be reached (refused, DNS, TLS, timeout). */
  CONNECTION: 3,
  /**
   * The agent or server answered with an error, or with something the protocol does not allow; or
   * the outbound policy refused a download's URL (URL_NOT_ALLOWED).
   */
  PROTOCOL: 4,
  /** A followed task is waiting for input (INPUT_REQUIRED). */
  INPUT_REQUIRED: 5,
  /** A followed task is waiting for the caller to authorize something (AUTH_REQUIRED). */
  AUTH_REQUIRED: 6,
  /** The agent or server refused the credentials, or none were given (UNAUTHENTICATED, FORBIDDEN). */
  UNAUTHENTICATED: 7,
  /** `serve`: the data directory cannot be created or written (read-only, permission, a file in the way). */
  DATA_DIR_UNUSABLE: 8,
  /** `serve`: the database file cannot be opened or created. */
  DATABASE_UNOPENABLE: 9,
  /** `serve`: the database file is corrupt (failed its integrity check). */
  DATABASE_CORRUPT: 10,
} as const

/** A command-line mistake: reported with the usage hint, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** The exit status for where a followed task stopped. */
export const exitCodeOfState = (state: TaskState): number => {
  switch (state) {
    case 'COMPLETED':
      return EXIT.OK
    case 'FAILED':
    case 'CANCELLED':
    case 'REJECTED':
      return EXIT.TASK_UNSUCCESSFUL
    case 'INPUT_REQUIRED':
      return EXIT.INPUT_REQUIRED
    case 'AUTH_REQUIRED':
      return EXIT.AUTH_REQUIRED
    default:
      return EXIT.OK
  }
}

const CONNECTION_CODES = new Set(['CONNECTION_FAILED', 'TIMEOUT', 'STREAM_LOST'])
const CREDENTIAL_CODES = new Set(['UNAUTHENTICATED', 'FORBIDDEN'])

const STARTUP_FAILURES = new Set(['DATA_DIR_UNUSABLE', 'DATABASE_UNOPENABLE', 'DATABASE_CORRUPT'])

/**
 * The exit status of a command that failed before it did anything (`serve` starting, or a command
 * opening the store): the class of start-up failure, else bad usage or configuration.
 */
export const exitCodeOfStartup = (error: unknown): number => {
  const failure = (error as { failure?: unknown } | undefined)?.failure
  return typeof failure === 'string' && STARTUP_FAILURES.has(failure)
    ? EXIT[failure as 'DATA_DIR_UNUSABLE']
    : EXIT.USAGE
}

/** The exit status for an error: usage, start-up, connection, or what the other side said. */
export const exitCodeOfError = (error: unknown): number => {
  if (error instanceof UsageError) return EXIT.USAGE
  if ((error as { name?: unknown } | undefined)?.name === 'StartupError') return exitCodeOfStartup(error)
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return EXIT.CONNECTION
  if (typeof code === 'string' && CREDENTIAL_CODES.has(code)) return EXIT.UNAUTHENTICATED
  if (code === 'INVALID_REQUEST' && (error as { status?: unknown }).status === undefined) return EXIT.USAGE
  return EXIT.PROTOCOL
}

export const EXIT_CODES_HELP = `
Exit codes:
  0  done; a followed task COMPLETED
  1  a followed task ended FAILED, CANCELLED or REJECTED
  2  bad usage (unknown option, missing argument, invalid JSON or URL)
  3  the agent, server or a download's host could not be reached (refused, DNS, TLS, timeout, stream lost)
  4  the agent or server answered with an error, or broke its protocol; a download's URL was refused
  5  a followed task waits for input (INPUT_REQUIRED)
  6  a followed task waits for the caller to authorize something (AUTH_REQUIRED)
  7  the credentials are missing or refused (UNAUTHENTICATED, FORBIDDEN)
  8  the data directory cannot be created or written (read-only, permission denied, a file in the way)
  9  the database file cannot be opened or created
  10 the database file is corrupt`
