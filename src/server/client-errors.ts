import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import type { ErrorCode } from '../model/errors.ts'
import { HTTP_STATUS } from '../web/errors.ts'

/** What node's HTTP parser refuses before any route sees the request, as catalogue errors. */
const CLIENT_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    message: 'the request line and headers exceed the size limit',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    message: 'the request was not received in time',
  },
}
const MALFORMED = { code: 'INVALID_REQUEST', message: 'the request is not valid HTTP' } as const

/**
 * Answers a connection node's HTTP server refuses (431, 408, unparseable requests) in our error
 * envelope, in place of fastify's own `{"error","message","statusCode"}`; then closes it.
 */
export const clientErrorHandler =
  (logger: Logger) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const { code, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED
    logger.debug({ err: error }, 'client error')
    // A response already under way on this connection (a stream) must not get a second status line.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    if (!socket.writable || inFlight) {
      socket.destroy(error)
      return
    }
    const status = HTTP_STATUS[code]
    const body = JSON.stringify({ error: { code, message } })
    // Ended, then destroyed once written: the client reads the whole answer before the close.
    socket.once('finish', () => socket.destroy())
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
