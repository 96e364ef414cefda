import { ERROR_CODES, type ErrorCode, type ErrorDetails, type FieldViolation } from '../model/errors.ts'
import { isObject } from '../model/json.ts'
import type { HeaderReader } from './card-cache.ts'
import type { RemoteTask } from './types.ts'

/**
 * Codes only a client can produce: the server never sends them, they describe what happened on
 * the way to it (or what it answered that makes no sense).
 */
export const CLIENT_ERROR_CODES = {
  CONNECTION_FAILED: 'The agent could not be reached (refused, reset, DNS or TLS failure)',
  TIMEOUT: 'The call did not finish within its timeout',
  ABORTED: 'The caller aborted the call',
  PROTOCOL_ERROR: 'The agent answered something its protocol does not allow',
  CARD_NOT_FOUND: 'No agent card at the well-known locations',
  CARD_INVALID: 'The agent card does not conform to its schema',
  CARD_UNTRUSTED:
    'The agent card is not signed by a trusted key (or not signed when a signature is required)',
  ORIGIN_NOT_ALLOWED: 'A URL is outside the allowed origins',
  NO_USABLE_INTERFACE: 'The agent offers no interface this client can use',
  STREAM_LOST: 'The event stream could not be resumed after repeated attempts',
} as const

export type ClientOnlyCode = keyof typeof CLIENT_ERROR_CODES

/** Every code a ClientError carries: the server catalogue (src/model/errors.ts) plus the client's own. */
export type ClientErrorCode = ErrorCode | ClientOnlyCode

export interface ClientErrorOptions {
  /** The HTTP status of the answer that carried the error, when there was one. */
  status?: number
  details?: ErrorDetails
  cause?: unknown
  /**
   * The request never reached the agent (connection refused, DNS, nothing listening at the path):
   * safe to repeat on another interface.
   */
  unreachable?: boolean
}

/** The one error class of the client: a code, a message, and what is known about where it came from. */
export class ClientError extends Error {
  readonly code: ClientErrorCode
  readonly status: number | undefined
  readonly details: ErrorDetails | undefined
  readonly unreachable: boolean

  constructor(code: ClientErrorCode, message?: string, options: ClientErrorOptions = {}) {
    super(message ?? describeCode(code), options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ClientError'
    this.code = code
    this.status = options.status
    this.details = options.details
    this.unreachable = options.unreachable ?? false
  }
}

/** A COMPLETED task whose output breaks the agent's declared output schema. */
export class OutputSchemaError extends ClientError {
  readonly task: RemoteTask
  readonly violations: FieldViolation[]

  constructor(task: RemoteTask, violations: FieldViolation[]) {
    super(
      'OUTPUT_SCHEMA_VIOLATION',
      `task ${task.id} completed with output that breaks the agent's output schema: ${violations
        .map((v) => v.description)
        .join('; ')}`,
      { details: { violations } },
    )
    this.name = 'OutputSchemaError'
    this.task = task
    this.violations = violations
  }
}

export const isClientError = (error: unknown): error is ClientError => error instanceof ClientError

const describeCode = (code: ClientErrorCode): string =>
  code in CLIENT_ERROR_CODES ? CLIENT_ERROR_CODES[code as ClientOnlyCode] : ERROR_CODES[code as ErrorCode]

export const isCatalogueCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CODES, value)

/** A code a server may name in its error body: the catalogue's. */
const isServerCode = isCatalogueCode

const AUTH_CODES: ReadonlySet<ClientErrorCode> = new Set(['UNAUTHENTICATED', 'FORBIDDEN'])

/**
 * An authentication failure keeps the server's challenge (`WWW-Authenticate`: the scheme, realm
 * and scope it wants) in `details.challenge`, so the caller can tell what to send.
 */
const withChallenge = (error: ClientError, headers: HeaderReader | undefined): ClientError => {
  const challenge = headers?.get('www-authenticate')
  if (challenge && AUTH_CODES.has(error.code)) {
    return new ClientError(error.code, error.message, {
      ...(error.status !== undefined && { status: error.status }),
      details: { ...error.details, challenge },
    })
  }
  return error
}

/** A2A JSON-RPC error codes (digest §4.2) and the catalogue code each stands for. */
export const JSON_RPC_CODES: Readonly<Record<number, ClientErrorCode>> = {
  [-32700]: 'INVALID_JSON',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_REQUEST',
  [-32603]: 'INTERNAL',
  // JSON-RPC leaves authentication to the server; -32000 is the first server-defined code (ours).
  [-32000]: 'UNAUTHENTICATED',
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32006]: 'PROTOCOL_ERROR',
  [-32007]: 'EXTENDED_CARD_NOT_CONFIGURED',
  [-32008]: 'EXTENSION_SUPPORT_REQUIRED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
  // Switchboard's own server-defined codes (docs/a2a.md).
  [-32020]: 'FORBIDDEN',
  [-32029]: 'RATE_LIMITED',
}

/** google.rpc.ErrorInfo reasons (A2A's, and the standard ones our server also sends). */
export const ERROR_INFO_REASONS: Readonly<Record<string, ClientErrorCode>> = {
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  TASK_NOT_CANCELABLE: 'TASK_NOT_CANCELABLE',
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'PUSH_NOT_SUPPORTED',
  UNSUPPORTED_OPERATION: 'UNSUPPORTED_OPERATION',
  CONTENT_TYPE_NOT_SUPPORTED: 'CONTENT_TYPE_NOT_SUPPORTED',
  INVALID_AGENT_RESPONSE: 'PROTOCOL_ERROR',
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'EXTENDED_CARD_NOT_CONFIGURED',
  EXTENSION_SUPPORT_REQUIRED: 'EXTENSION_SUPPORT_REQUIRED',
  VERSION_NOT_SUPPORTED: 'VERSION_NOT_SUPPORTED',
  PARSE_ERROR: 'INVALID_JSON',
  INVALID_REQUEST: 'INVALID_REQUEST',
  INVALID_PARAMS: 'INVALID_REQUEST',
  METHOD_NOT_FOUND: 'METHOD_NOT_FOUND',
  INTERNAL: 'INTERNAL',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PERMISSION_DENIED: 'FORBIDDEN',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAVAILABLE: 'UNAVAILABLE',
}

/** When nothing in the body names the error, the HTTP status still says roughly what went wrong. */
export const codeOfStatus = (status: number): ClientErrorCode => {
  if (status === 401) return 'UNAUTHENTICATED'
  if (status === 403) return 'FORBIDDEN'
  if (status === 404) return 'METHOD_NOT_FOUND'
  if (status === 409) return 'INVALID_TRANSITION'
  if (status === 413) return 'PAYLOAD_TOO_LARGE'
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE'
  if (status === 429) return 'RATE_LIMITED'
  if (status === 502 || status === 503 || status === 504) return 'UNAVAILABLE'
  if (status >= 500) return 'INTERNAL'
  if (status >= 400) return 'INVALID_REQUEST'
  return 'PROTOCOL_ERROR'
}

interface ErrorInfo {
  reason?: string
  metadata?: Record<string, unknown>
}

/** The ErrorInfo and BadRequest entries of an A2A `details` / JSON-RPC `data` array. */
const readDetails = (details: unknown): { info?: ErrorInfo; violations?: FieldViolation[] } => {
  if (!Array.isArray(details)) return {}
  const result: { info?: ErrorInfo; violations?: FieldViolation[] } = {}
  for (const entry of details) {
    if (!isObject(entry)) continue
    const type = String(entry['@type'] ?? '')
    if (type.endsWith('google.rpc.ErrorInfo')) result.info = entry as ErrorInfo
    if (type.endsWith('google.rpc.BadRequest') && Array.isArray(entry.fieldViolations)) {
      result.violations = entry.fieldViolations.filter(isObject).map((v) => ({
        field: String(v.field ?? ''),
        description: String(v.description ?? ''),
      }))
    }
  }
  return result
}

/**
 * The most precise code an A2A error allows: our server names its catalogue code in the
 * ErrorInfo metadata; any A2A server gives a reason; the JSON-RPC code or HTTP status is the
 * fallback (several A2A errors share HTTP 400, so the status alone is the last resort).
 */
const a2aCode = (info: ErrorInfo | undefined, fallback: ClientErrorCode): ClientErrorCode => {
  const ours = info?.metadata?.code
  if (isServerCode(ours)) return ours
  const reason = typeof info?.reason === 'string' ? ERROR_INFO_REASONS[info.reason] : undefined
  return reason ?? fallback
}

const detailsOf = (info: ErrorInfo | undefined, violations: FieldViolation[] | undefined): ErrorDetails => {
  const details: ErrorDetails = {}
  if (info?.reason) details.reason = info.reason
  if (isObject(info?.metadata)) Object.assign(details, info.metadata)
  if (violations?.length) details.violations = violations
  return details
}

/** Statuses that, without a protocol error body, mean nothing of the agent answered at that URL. */
const MISSING_OR_DOWN = new Set([404, 405, 501, 502, 503, 504])

/** An HTTP error with no protocol error body: only the status speaks. */
export const bareStatus = (status: number, what = `HTTP ${status}`, headers?: HeaderReader): ClientError =>
  withChallenge(
    new ClientError(codeOfStatus(status), what, { status, unreachable: MISSING_OR_DOWN.has(status) }),
    headers,
  )

/** A JSON-RPC error object as a ClientError. */
export const fromJsonRpcError = (error: unknown, status: number, headers?: HeaderReader): ClientError => {
  if (!isObject(error))
    return new ClientError('PROTOCOL_ERROR', 'the JSON-RPC error is not an object', { status })
  const rpcCode = typeof error.code === 'number' ? error.code : undefined
  const { info, violations } = readDetails(error.data)
  const fallback = rpcCode === undefined ? 'PROTOCOL_ERROR' : (JSON_RPC_CODES[rpcCode] ?? 'INTERNAL')
  const message = typeof error.message === 'string' ? error.message : `JSON-RPC error ${rpcCode}`
  const details = detailsOf(info, violations)
  if (rpcCode !== undefined) details.jsonRpcCode = rpcCode
  return withChallenge(new ClientError(a2aCode(info, fallback), message, { status, details }), headers)
}

/** An A2A HTTP+JSON error answer (`{ error: google.rpc.Status }`) as a ClientError. */
export const fromRestError = (body: unknown, status: number, headers?: HeaderReader): ClientError => {
  const error = isObject(body) && isObject(body.error) ? body.error : undefined
  if (!error) return bareStatus(status, undefined, headers)
  const { info, violations } = readDetails(error.details)
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`
  return withChallenge(
    new ClientError(a2aCode(info, codeOfStatus(status)), message, {
      status,
      details: detailsOf(info, violations),
    }),
    headers,
  )
}

/**
 * An A2A error from its parts, whichever binding carried them (gRPC: the google.rpc.Status of the
 * trailers): the ErrorInfo names the code, `fallback` stands in when nothing does.
 */
export const fromA2aStatus = (status: {
  message: string
  details: unknown
  fallback: ClientErrorCode
  extra?: ErrorDetails
  unreachable?: boolean
  headers?: HeaderReader
  cause?: unknown
}): ClientError => {
  const { info, violations } = readDetails(status.details)
  return withChallenge(
    new ClientError(a2aCode(info, status.fallback), status.message, {
      details: { ...detailsOf(info, violations), ...status.extra },
      unreachable: status.unreachable ?? false,
      ...(status.cause !== undefined && { cause: status.cause }),
    }),
    status.headers,
  )
}

/**
 * A Clawpedia error answer (`{ error: { code, message, details } }`). The reference leaves codes
 * free-form; ours are catalogue codes, anything else falls back to the HTTP status.
 */
export const fromClawpediaError = (body: unknown, status: number, headers?: HeaderReader): ClientError => {
  const error = isObject(body) && isObject(body.error) ? body.error : undefined
  if (!error) return bareStatus(status, undefined, headers)
  const code = isServerCode(error.code) ? error.code : codeOfStatus(status)
  const details: ErrorDetails = isObject(error.details) ? { ...error.details } : {}
  if (typeof error.code === 'string' && error.code !== code) details.remoteCode = error.code
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`
  return withChallenge(new ClientError(code, message, { status, details }), headers)
}

/** Connection-phase failures: nothing reached the agent, so another interface may be tried. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/** The first `code` found along an error's cause chain (fetch wraps the socket error). */
export const causeCode = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

const causeMessage = (error: unknown): string => {
  const parts: string[] = []
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message)
    e = e.cause
  }
  return parts.join(': ') || String(error)
}

/** Name-resolution failures (getaddrinfo's, as Node names them). */
const DNS_FAILURES: ReadonlyMap<string, string> = new Map([
  ['ENOTFOUND', 'no such host'],
  ['EAI_AGAIN', 'a temporary DNS failure'],
  ['EAI_FAIL', 'a DNS failure'],
])

/** The host a getaddrinfo failure along the cause chain was about. */
const lookupHost = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    const hostname = (e as { hostname?: unknown }).hostname
    if (typeof hostname === 'string') return hostname
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * A failed fetch or a broken response body as a ClientError. A DNS failure says so and names the
 * host: it is a connection failure (the name may resolve later), not a refusal by anyone.
 */
export const fromNetworkError = (error: unknown, what: string): ClientError => {
  if (isClientError(error)) return error
  const code = causeCode(error)
  const dns = code === undefined ? undefined : DNS_FAILURES.get(code)
  if (dns !== undefined) {
    const host = lookupHost(error)
    const name = host === undefined ? 'the host' : `the host "${host}"`
    return new ClientError('CONNECTION_FAILED', `${what}: ${name} could not be resolved (${dns}, ${code})`, {
      cause: error,
      unreachable: true,
      details: { cause: code!, ...(host !== undefined && { host }) },
    })
  }
  return new ClientError('CONNECTION_FAILED', `${what}: ${causeMessage(error)}`, {
    cause: error,
    unreachable: code !== undefined && UNREACHABLE.has(code),
    ...(code !== undefined && { details: { cause: code } }),
  })
}
