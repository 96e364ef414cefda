import type { FastifyReply, FastifyRequest } from 'fastify'
import type { EngineLogger } from '../engine/logger.ts'
import { type ErrorCode, SwitchboardError } from '../model/errors.ts'

/** HTTP status per error code, for the REST-style surfaces (Clawpedia, admin). A2A has its own table. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_ID: 400,
  INPUT_SCHEMA_VIOLATION: 400,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONTENT_TYPE_NOT_SUPPORTED: 415,
  CONTEXT_MISMATCH: 400,
  VERSION_NOT_SUPPORTED: 400,
  METHOD_NOT_FOUND: 404,
  HEADERS_TOO_LARGE: 431,
  URL_NOT_ALLOWED: 400,
  IDEMPOTENCY_CONFLICT: 409,
  TASK_NOT_FOUND: 404,
  ARTIFACT_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  PUSH_CONFIG_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  TASK_TERMINAL: 409,
  TASK_NOT_CANCELABLE: 409,
  TASK_NOT_AWAITING_INPUT: 409,
  INVALID_TRANSITION: 409,
  LEASE_LOST: 409,
  VERSION_CONFLICT: 409,
  UNSUPPORTED_OPERATION: 400,
  PUSH_NOT_SUPPORTED: 400,
  EXTENDED_CARD_NOT_CONFIGURED: 400,
  EXTENSION_SUPPORT_REQUIRED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  AGENT_ERROR: 500,
  AGENT_INTERRUPTED: 500,
  OUTPUT_SCHEMA_VIOLATION: 500,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  STORAGE_FULL: 507,
}

/**
 * Turns anything thrown while serving a request into a catalogue error. Framework errors (body too
 * large, unknown content type, malformed URL) get their proper codes; anything unexpected becomes
 * INTERNAL, with the original kept as `cause` for the log and never shown to the client.
 */
export const asSwitchboardError = (error: unknown): SwitchboardError => {
  if (error instanceof SwitchboardError) return error
  const { code, statusCode, message } = (error ?? {}) as {
    code?: string
    statusCode?: number
    message?: string
  }
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SwitchboardError('PAYLOAD_TOO_LARGE', 'the request body exceeds the size limit')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SwitchboardError(
        'UNSUPPORTED_MEDIA_TYPE',
        'the Content-Type must be application/json or application/a2a+json',
      )
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new SwitchboardError('INVALID_REQUEST', 'the Content-Length does not match the body')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SwitchboardError('INVALID_JSON', 'the body is empty; a JSON document was expected')
    case 'FST_ERR_BAD_URL':
      return new SwitchboardError('INVALID_REQUEST', 'the URL is malformed')
  }
  if (isStoreOutage(error)) {
    return new SwitchboardError('UNAVAILABLE', 'the task store is unavailable; retry shortly', undefined, {
      cause: error,
    })
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new SwitchboardError('INVALID_REQUEST', message ?? 'bad request')
  }
  return new SwitchboardError('INTERNAL', 'internal error', undefined, { cause: error })
}

/**
 * The error handler of the REST-style surfaces (Clawpedia, admin): `{ error: { code, message,
 * details? } }` with the code's HTTP status. An INTERNAL error is logged with its cause, which the
 * client never sees.
 */
export const errorBodyHandler =
  (logger: EngineLogger) => (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const failure = asSwitchboardError(error)
    if (failure.code === 'INTERNAL')
      // The path only: a query string may carry what a client should not have put there (a key).
      logger.error({ err: failure.cause ?? error, url: request.url.split('?')[0] }, 'request failed')
    const body: { code: string; message: string; details?: object } = {
      code: failure.code,
      message: failure.message,
    }
    if (failure.details) body.details = failure.details
    return reply.code(HTTP_STATUS[failure.code]).send({ error: body })
  }

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
])
/** PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown). */
const OUTAGE_SQLSTATE = /^(08|57P)/

/** The database could not be reached or is going away: worth a 503 (retry), not a 500 (bug). */
const isStoreOutage = (error: unknown): boolean => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || OUTAGE_SQLSTATE.test(code))) return true
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect/.test(message)
  )
}
