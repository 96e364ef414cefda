import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { type Dispatcher, fetch, type Response } from 'undici'
import type { OriginCredentials } from './credentials.ts'
import { ClientError, causeCode, fromNetworkError } from './errors.ts'

/**
 * One CLIENT span per request (until the answer's headers arrive), a child of the caller's active
 * context; its context goes out as `traceparent`/`tracestate`, so the agent's server span is its
 * child. With no SDK registered both are no-ops and no header is added.
 */
const startCallSpan = (method: string, url: string): Span =>
  trace.getTracer('switchboard').startSpan(`client ${method}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': method, 'url.full': url.split('?')[0]! },
  })

const propagationHeaders = (span: Span): Record<string, string> => {
  const carrier: Record<string, string> = {}
  propagation.inject(trace.setSpan(context.active(), span), carrier)
  return carrier
}

const endCallSpan = (span: Span, status: number | undefined, error?: unknown): void => {
  if (status !== undefined) span.setAttribute('http.response.status_code', status)
  if (error !== undefined || (status !== undefined && status >= 500))
    span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error && { message: error.message }) })
  span.end()
}

/** What every request of one agent connection shares. */
export interface HttpSettings {
  /** The connection's credentials: added to requests to their own origin only. */
  credentials?: OriginCredentials
  /** Default per-call timeout. */
  timeoutMs: number
  dispatcher?: Dispatcher
}

export interface RequestSpec {
  method?: string
  headers?: Record<string, string>
  body?: string
  signal?: AbortSignal
  timeoutMs?: number
  dispatcher?: Dispatcher
  /** Safe to send twice (default: GET and HEAD); see `send`. */
  idempotent?: boolean
}

/**
 * One request's lifetime: the caller's signal and the timeout feed a single controller, and a
 * failure is reported as what it was (TIMEOUT, ABORTED, CONNECTION_FAILED), not as an AbortError.
 */
export class Exchange {
  readonly controller = new AbortController()
  #timer: NodeJS.Timeout | undefined
  #timedOut = false
  #detach: () => void

  constructor(signal: AbortSignal | undefined, timeoutMs: number | undefined) {
    const onAbort = (): void => this.controller.abort(signal?.reason)
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    this.#detach = () => signal?.removeEventListener('abort', onAbort)
    if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#timer = setTimeout(() => {
        this.#timedOut = true
        this.controller.abort(new ClientError('TIMEOUT', `no answer within ${timeoutMs} ms`))
      }, timeoutMs)
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Streams: the timeout bounds waiting for the head, not the life of the stream. */
  stopTimer(): void {
    clearTimeout(this.#timer)
  }

  end(): void {
    this.stopTimer()
    this.#detach()
  }

  /** The error to report for anything that failed while this exchange was open. */
  failure(error: unknown, what: string): ClientError {
    if (this.#timedOut) return new ClientError('TIMEOUT', `${what}: timed out`, { cause: error })
    if (this.controller.signal.aborted) {
      const reason = this.controller.signal.reason
      if (reason instanceof ClientError) return reason
      return new ClientError('ABORTED', `${what}: aborted`, { cause: reason ?? error })
    }
    return fromNetworkError(error, what)
  }
}

/**
 * The server did not take the credentials: a 401, or a challenge on another status (RFC 9110
 * §11.6.1 allows it; a JSON-RPC server answers every error, this one included, with HTTP 200).
 */
const refusedCredentials = (response: Response): boolean =>
  response.status === 401 || response.headers.has('www-authenticate')

/** The server closed a kept-alive connection as the request went out on it. */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

/**
 * Sends a request; the exchange stays open (the caller reads the body, then ends it). An
 * idempotent request that meets a pooled connection the server has just closed is sent once more
 * on a fresh one: that failure says nothing about the agent. A refusal (401) of a request that carried
 * credentials which can be renewed (an OAuth token the server no longer takes) is sent once more
 * with fresh ones: the server refused it before doing anything, so even a POST is safe to repeat.
 */
export const send = async (
  settings: HttpSettings,
  url: string,
  spec: RequestSpec,
): Promise<{ response: Response; exchange: Exchange }> => {
  const method = spec.method ?? 'GET'
  const idempotent = spec.idempotent ?? (method === 'GET' || method === 'HEAD')
  const exchange = new Exchange(spec.signal, spec.timeoutMs ?? settings.timeoutMs)
  let renewed = false
  let resent = false
  for (;;) {
    let credentials: Record<string, string>
    try {
      credentials = (await settings.credentials?.headersFor(url)) ?? {}
    } catch (error) {
      exchange.end()
      throw error
    }
    let response: Response
    const span = startCallSpan(method, url)
    try {
      response = await fetch(url, {
        method,
        headers: { ...spec.headers, ...propagationHeaders(span), ...credentials },
        body: spec.body,
        signal: exchange.signal,
        // Never followed automatically: to an API call a 3xx is a protocol error, and card and
        // download fetches follow redirects by hand, vetting every hop (and its credentials).
        redirect: 'manual',
        ...((spec.dispatcher ?? settings.dispatcher) && {
          dispatcher: spec.dispatcher ?? settings.dispatcher,
        }),
      })
    } catch (error) {
      endCallSpan(span, undefined, error)
      const code = causeCode(error)
      const stale = code !== undefined && STALE_CONNECTION.has(code) && !exchange.signal.aborted
      if (idempotent && stale && !resent) {
        resent = true
        continue
      }
      exchange.end()
      throw exchange.failure(error, `${method} ${url}`)
    }
    endCallSpan(span, response.status)
    if (refusedCredentials(response) && !renewed && settings.credentials?.refused(credentials)) {
      renewed = true
      await response.body?.cancel()
      continue
    }
    return { response, exchange }
  }
}

/** Bodies of unary answers are read whole, so they are capped: a hostile agent cannot exhaust memory. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024

/** Reads a body as text, refusing more than `limit` bytes. */
export const readText = async (response: Response, limit = MAX_JSON_BYTES): Promise<string> => {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel()
    throw new ClientError('PAYLOAD_TOO_LARGE', `the answer is ${declared} bytes; the limit is ${limit}`)
  }
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.byteLength
    if (size > limit) {
      await response.body.cancel().catch(() => {})
      throw new ClientError('PAYLOAD_TOO_LARGE', `the answer exceeds ${limit} bytes`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export interface JsonAnswer {
  status: number
  headers: Response['headers']
  /** The parsed body; undefined when empty or not JSON. */
  body: unknown
  text: string
}

/** A whole request/answer exchange with a JSON (or empty) answer; never throws on an HTTP status. */
export const requestJson = async (
  settings: HttpSettings,
  url: string,
  spec: RequestSpec,
): Promise<JsonAnswer> => {
  const { response, exchange } = await send(settings, url, spec)
  try {
    const text = await readText(response)
    let body: unknown
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
    }
    return { status: response.status, headers: response.headers, body, text }
  } catch (error) {
    throw exchange.failure(error, `${spec.method ?? 'GET'} ${url}`)
  } finally {
    exchange.end()
  }
}

/** Resolves after `ms`, or rejects with ABORTED when the signal fires first. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ClientError('ABORTED', 'aborted', { cause: signal.reason }))
      return
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new ClientError('ABORTED', 'aborted', { cause: signal?.reason }))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/**
 * Jittered exponential backoff ("equal jitter"): half of min(max, base·2^(attempt-1)) plus a random
 * part of the other half, so clients that lost the same server do not all come back at the same
 * instant, and none comes back at once.
 */
export const backoffDelay = (
  attempt: number,
  baseMs: number,
  maxMs: number,
  random = Math.random,
): number => {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(cap / 2 + (random() * cap) / 2)
}
