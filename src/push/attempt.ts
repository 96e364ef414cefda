import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { type Dispatcher, request } from 'undici'
import { findRefusal } from '../outbound/ssrf.ts'
import { parseRetryAfter } from './backoff.ts'

/** What one POST to a webhook came to; the worker turns it into a store outcome. */
export type AttemptResult =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retry'; error: string; status?: number; retryAfterMs?: number }
  | { outcome: 'dead'; error: string; status?: number }

export interface AttemptRequest {
  dispatcher: Dispatcher
  url: string
  body: string
  headers: Record<string, string>
  /** Bounds the whole exchange: connect, headers and body. */
  timeoutMs: number
  /** Aborts the attempt without a result (shutdown); the caller must not settle it. */
  signal?: AbortSignal
}

/**
 * The status → outcome table. 408 and 429 say "later", 5xx may heal; any other 4xx means the
 * receiver refuses this notification, and asking again would not change its mind. A 3xx is only
 * seen when redirects are not followed (or too many were), which retrying cannot fix either.
 */
export const classifyStatus = (status: number, retryAfter?: string | string[]): AttemptResult => {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status }
  const error = `HTTP ${status}`
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter) : undefined
    return retryAfterMs === undefined
      ? { outcome: 'retry', error, status }
      : { outcome: 'retry', error, status, retryAfterMs }
  }
  if (status >= 300 && status < 400)
    return { outcome: 'dead', error: `${error} (redirect not followed)`, status }
  if (status >= 400) return { outcome: 'dead', error, status }
  return { outcome: 'retry', error, status }
}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  const message = error.message || error.name
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message
}

/**
 * POSTs one rendered notification and reads (and discards) the answer. Never throws. Each attempt
 * is a CLIENT span (`push.deliver`) whose context goes out as `traceparent`; no-ops when tracing is off.
 */
export const postNotification = async (attempt: AttemptRequest): Promise<AttemptResult> => {
  const span = trace.getTracer('switchboard').startSpan('push.deliver', {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': 'POST', 'url.full': attempt.url.split('?')[0]! },
  })
  const carrier: Record<string, string> = {}
  propagation.inject(trace.setSpan(context.active(), span), carrier)
  const result = await post({ ...attempt, headers: { ...attempt.headers, ...carrier } }, span)
  span.setAttribute('switchboard.push.outcome', result.outcome)
  if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status)
  if (result.outcome !== 'delivered') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error })
  }
  span.end()
  return result
}

const post = async (attempt: AttemptRequest, span: Span): Promise<AttemptResult> => {
  const { dispatcher, url, body, headers, timeoutMs } = attempt
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return { outcome: 'dead', error: 'the push URL is not a valid URL' }
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { outcome: 'dead', error: `the push URL scheme ${target.protocol} is not http or https` }
  }
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = attempt.signal ? AbortSignal.any([attempt.signal, timeout]) : timeout
  try {
    const response = await request(target, {
      method: 'POST',
      dispatcher,
      headers,
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    try {
      await response.body.dump({ limit: 64 * 1024, signal })
    } catch {
      // The status is the receiver's answer; an unreadable body after it changes nothing.
    }
    return classifyStatus(response.statusCode, response.headers['retry-after'])
  } catch (error) {
    if (timeout.aborted) return { outcome: 'retry', error: `timed out after ${timeoutMs} ms` }
    // The policy will refuse the same address next time: retrying only delays the verdict.
    const refusal = findRefusal(error)
    if (refusal) {
      span.setAttribute('switchboard.policy.decision', 'ssrf-refused')
      span.setAttribute('switchboard.policy.reason', refusal.message)
      return { outcome: 'dead', error: refusal.message }
    }
    return { outcome: 'retry', error: describe(error) }
  }
}
