/**
 * The closed catalogue of error codes. Every error Switchboard raises carries one of these codes,
 * a human message and optional details; each dialect maps codes to its wire form in one table,
 * and a test fails if a code is missing from a table or from docs/errors.md.
 */
export const ERROR_CODES = {
  // The request itself is wrong.
  INVALID_JSON: 'The body is not valid JSON',
  INVALID_REQUEST: 'The request does not have the required shape',
  INVALID_ID: 'An id in the path is malformed',
  INPUT_SCHEMA_VIOLATION: "The input does not conform to the agent's input schema",
  PAYLOAD_TOO_LARGE: 'The body exceeds the configured limit',
  REQUEST_TIMEOUT: 'The request (headers or body) did not arrive in time',
  UNSUPPORTED_MEDIA_TYPE: 'The request Content-Type is not accepted on this endpoint',
  CONTENT_TYPE_NOT_SUPPORTED: 'A message part has a media type the agent does not accept',
  CONTEXT_MISMATCH: 'The contextId does not match the task',
  VERSION_NOT_SUPPORTED: 'The requested protocol version is not supported',
  METHOD_NOT_FOUND: 'The method or route does not exist',
  HEADERS_TOO_LARGE: 'The request line and headers exceed the size limit',
  URL_NOT_ALLOWED: 'A URL was refused by the outbound request policy (SSRF guard)',
  IDEMPOTENCY_CONFLICT:
    'The idempotency key (A2A messageId, Clawpedia Idempotency-Key) was already used for a different request',
  // Something does not exist (or is not visible to the caller).
  TASK_NOT_FOUND: 'No such task',
  ARTIFACT_NOT_FOUND: 'No such artifact',
  AGENT_NOT_FOUND: 'No such agent',
  PUSH_CONFIG_NOT_FOUND: 'No such push notification config',
  DELIVERY_NOT_FOUND: 'No such push delivery',
  // The task is in the wrong state for the operation.
  TASK_TERMINAL: 'The task is in a terminal state and cannot change',
  TASK_NOT_CANCELABLE: 'The task cannot be cancelled in its current state',
  TASK_NOT_AWAITING_INPUT: 'The task is not waiting for input',
  INVALID_TRANSITION: 'The state transition is not allowed',
  LEASE_LOST: 'This replica no longer holds the execution lease',
  VERSION_CONFLICT: 'The task changed while this write was being made; retry it',
  // The agent or server does not offer the feature.
  UNSUPPORTED_OPERATION: 'The operation is not supported',
  PUSH_NOT_SUPPORTED: 'Push notifications are not supported by this agent',
  EXTENDED_CARD_NOT_CONFIGURED: 'No extended agent card is configured',
  EXTENSION_SUPPORT_REQUIRED: 'The agent requires an extension the request did not activate',
  UNAUTHENTICATED: 'Authentication is required',
  FORBIDDEN: 'The caller is not allowed to do this',
  RATE_LIMITED: 'The caller sent too many requests or holds too many open tasks; retry later',
  // Task failure codes (error.code of a FAILED task).
  AGENT_ERROR: 'The agent handler threw an unexpected error',
  AGENT_INTERRUPTED: 'The server stopped while the task was running',
  OUTPUT_SCHEMA_VIOLATION: "The agent's output does not conform to its output schema",
  // The server failed.
  INTERNAL: 'Internal error',
  UNAVAILABLE: 'The server is shutting down or overloaded',
  STORAGE_FULL: 'The task store has no space left to write; retry later',
} as const

export type ErrorCode = keyof typeof ERROR_CODES

export interface FieldViolation {
  /** JSON pointer-ish path of the offending field, e.g. `/input/filename`. */
  field: string
  description: string
}

export interface ErrorDetails {
  violations?: FieldViolation[]
  [key: string]: unknown
}

/** The one error class of the code base: a code from the catalogue, a message, optional details. */
export class SwitchboardError extends Error {
  readonly code: ErrorCode
  readonly details: ErrorDetails | undefined

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message ?? ERROR_CODES[code], options)
    this.name = 'SwitchboardError'
    this.code = code
    this.details = details
  }
}

export const isSwitchboardError = (e: unknown): e is SwitchboardError => e instanceof SwitchboardError

/** The error object of a FAILED task: agent codes are free-form strings, ours come from the catalogue. */
export interface TaskError {
  code: string
  message: string
  details?: Record<string, unknown>
}
