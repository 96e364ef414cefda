import type { ErrorCode, FieldViolation } from '../../model/errors.ts'
import { asSwitchboardError } from '../../web/errors.ts'

/**
 * The A2A errors (spec §3.3.2 and the JSON-RPC standard ones), each with its code on every
 * binding as v1.0.1 §5.4 tabulates them, and the ErrorInfo `reason` clients switch on (several
 * errors share HTTP 400, so the reason is what tells them apart).
 */
export const A2A_ERRORS = {
  JSONParseError: { jsonRpc: -32700, http: 400, status: 'INVALID_ARGUMENT', reason: 'PARSE_ERROR' },
  InvalidRequestError: { jsonRpc: -32600, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' },
  MethodNotFoundError: { jsonRpc: -32601, http: 404, status: 'NOT_FOUND', reason: 'METHOD_NOT_FOUND' },
  InvalidParamsError: { jsonRpc: -32602, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' },
  InternalError: { jsonRpc: -32603, http: 500, status: 'INTERNAL', reason: 'INTERNAL' },
  TaskNotFoundError: { jsonRpc: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' },
  TaskNotCancelableError: {
    jsonRpc: -32002,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'TASK_NOT_CANCELABLE',
  },
  PushNotificationNotSupportedError: {
    jsonRpc: -32003,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  },
  UnsupportedOperationError: {
    jsonRpc: -32004,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'UNSUPPORTED_OPERATION',
  },
  ContentTypeNotSupportedError: {
    jsonRpc: -32005,
    http: 400,
    status: 'INVALID_ARGUMENT',
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
  },
  InvalidAgentResponseError: {
    jsonRpc: -32006,
    http: 500,
    status: 'INTERNAL',
    reason: 'INVALID_AGENT_RESPONSE',
  },
  ExtendedAgentCardNotConfiguredError: {
    jsonRpc: -32007,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  },
  ExtensionSupportRequiredError: {
    jsonRpc: -32008,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
  },
  VersionNotSupportedError: {
    jsonRpc: -32009,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'VERSION_NOT_SUPPORTED',
  },
  // JSON-RPC leaves authentication to the implementation: -32000 is its first server-defined code.
  UnauthenticatedError: { jsonRpc: -32000, http: 401, status: 'UNAUTHENTICATED', reason: 'UNAUTHENTICATED' },
  // A valid caller without the right (per-agent access, the admin scope, another tenant): a
  // server-defined code clear of A2A's own (-32001…-32009) and of the next ones it may add.
  PermissionDeniedError: {
    jsonRpc: -32020,
    http: 403,
    status: 'PERMISSION_DENIED',
    reason: 'PERMISSION_DENIED',
  },
  // No A2A error says "slow down": a server-defined JSON-RPC code, and google.rpc's RESOURCE_EXHAUSTED.
  RateLimitedError: { jsonRpc: -32029, http: 429, status: 'RESOURCE_EXHAUSTED', reason: 'RATE_LIMITED' },
  UnavailableError: { jsonRpc: -32603, http: 503, status: 'UNAVAILABLE', reason: 'UNAVAILABLE' },
} as const

export type A2aErrorKind = keyof typeof A2A_ERRORS

/**
 * Every Switchboard error code as an A2A error. `http` overrides the kind's status where HTTP has
 * a more precise one (413, 415) than the A2A table.
 */
export const A2A_ERROR_OF: Readonly<Record<ErrorCode, { kind: A2aErrorKind; http?: number }>> = {
  INVALID_JSON: { kind: 'JSONParseError' },
  INVALID_REQUEST: { kind: 'InvalidParamsError' },
  INVALID_ID: { kind: 'InvalidParamsError' },
  INPUT_SCHEMA_VIOLATION: { kind: 'InvalidParamsError' },
  PAYLOAD_TOO_LARGE: { kind: 'InvalidRequestError', http: 413 },
  REQUEST_TIMEOUT: { kind: 'InvalidRequestError', http: 408 },
  UNSUPPORTED_MEDIA_TYPE: { kind: 'InvalidRequestError', http: 415 },
  CONTENT_TYPE_NOT_SUPPORTED: { kind: 'ContentTypeNotSupportedError' },
  CONTEXT_MISMATCH: { kind: 'InvalidParamsError' },
  VERSION_NOT_SUPPORTED: { kind: 'VersionNotSupportedError' },
  METHOD_NOT_FOUND: { kind: 'MethodNotFoundError' },
  HEADERS_TOO_LARGE: { kind: 'InvalidRequestError', http: 431 },
  URL_NOT_ALLOWED: { kind: 'InvalidParamsError' },
  // A2A defines no conflict error: a messageId reused for another message is a bad parameter.
  IDEMPOTENCY_CONFLICT: { kind: 'InvalidParamsError' },
  TASK_NOT_FOUND: { kind: 'TaskNotFoundError' },
  // A2A has one "not found" error for everything a task owns (spec: a missing push config is TaskNotFound).
  ARTIFACT_NOT_FOUND: { kind: 'TaskNotFoundError' },
  AGENT_NOT_FOUND: { kind: 'MethodNotFoundError' },
  PUSH_CONFIG_NOT_FOUND: { kind: 'TaskNotFoundError' },
  DELIVERY_NOT_FOUND: { kind: 'TaskNotFoundError' },
  TASK_TERMINAL: { kind: 'UnsupportedOperationError' },
  TASK_NOT_CANCELABLE: { kind: 'TaskNotCancelableError' },
  TASK_NOT_AWAITING_INPUT: { kind: 'UnsupportedOperationError' },
  INVALID_TRANSITION: { kind: 'UnsupportedOperationError' },
  LEASE_LOST: { kind: 'InternalError' },
  // A concurrency fault of the server, like LEASE_LOST: nothing the client's request did wrong.
  VERSION_CONFLICT: { kind: 'InternalError' },
  UNSUPPORTED_OPERATION: { kind: 'UnsupportedOperationError' },
  PUSH_NOT_SUPPORTED: { kind: 'PushNotificationNotSupportedError' },
  EXTENDED_CARD_NOT_CONFIGURED: { kind: 'ExtendedAgentCardNotConfiguredError' },
  EXTENSION_SUPPORT_REQUIRED: { kind: 'ExtensionSupportRequiredError' },
  UNAUTHENTICATED: { kind: 'UnauthenticatedError' },
  FORBIDDEN: { kind: 'PermissionDeniedError' },
  RATE_LIMITED: { kind: 'RateLimitedError' },
  AGENT_ERROR: { kind: 'InternalError' },
  AGENT_INTERRUPTED: { kind: 'UnavailableError' },
  OUTPUT_SCHEMA_VIOLATION: { kind: 'InvalidAgentResponseError' },
  INTERNAL: { kind: 'InternalError' },
  UNAVAILABLE: { kind: 'UnavailableError' },
  STORAGE_FULL: { kind: 'UnavailableError', http: 507 },
}

/** An error as A2A reports it, before it is written in one binding's shape. */
export interface A2aFailure {
  kind: A2aErrorKind
  message: string
  httpStatus: number
  /** google.rpc.ErrorInfo metadata: string values only. */
  metadata: Record<string, string>
  violations?: FieldViolation[]
  /** The original error when it was unexpected: logged, never shown. */
  internal?: unknown
}

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo'
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest'
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org'

/** A failure of a kind no Switchboard code stands for (a malformed JSON-RPC envelope). */
export const a2aFailure = (kind: A2aErrorKind, message: string): A2aFailure => ({
  kind,
  message,
  httpStatus: A2A_ERRORS[kind].http,
  metadata: {},
})

/** Anything thrown while serving an A2A request, as an A2A failure. */
export const toA2aFailure = (error: unknown): A2aFailure => {
  const failure = asSwitchboardError(error)
  const { kind, http } = A2A_ERROR_OF[failure.code]
  const metadata: Record<string, string> = { code: failure.code }
  for (const [key, value] of Object.entries(failure.details ?? {})) {
    if (key !== 'violations' && value !== undefined && value !== null && typeof value !== 'object') {
      metadata[key] = String(value)
    }
  }
  const result: A2aFailure = {
    kind,
    message: failure.code === 'INTERNAL' ? 'internal error' : failure.message,
    httpStatus: http ?? A2A_ERRORS[kind].http,
    metadata,
  }
  if (failure.details?.violations?.length) result.violations = failure.details.violations
  if (failure.code === 'INTERNAL') result.internal = failure.cause ?? error
  return result
}

/** The `@type` objects every binding carries: ErrorInfo always, BadRequest for validation failures. */
export const errorDetails = (failure: A2aFailure): object[] => {
  const details: object[] = [
    {
      '@type': ERROR_INFO_TYPE,
      reason: A2A_ERRORS[failure.kind].reason,
      domain: A2A_ERROR_DOMAIN,
      metadata: failure.metadata,
    },
  ]
  if (failure.violations) {
    details.push({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: failure.violations.map(({ field, description }) => ({ field, description })),
    })
  }
  return details
}

/** The JSON-RPC 2.0 error object (`data` is the array of details). */
export const jsonRpcError = (failure: A2aFailure): { code: number; message: string; data: object[] } => ({
  code: A2A_ERRORS[failure.kind].jsonRpc,
  message: failure.message,
  data: errorDetails(failure),
})

/** The REST error body: a google.rpc.Status wrapped in `error`. */
export const restErrorBody = (failure: A2aFailure) => ({
  error: {
    code: failure.httpStatus,
    status: A2A_ERRORS[failure.kind].status,
    message: failure.message,
    details: errorDetails(failure),
  },
})
