import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { type Dispatcher, request } from 'undici'
import type { FetchedFile, FileFetcher } from '../agent/context.ts'
import { AgentError } from '../agent/define.ts'
import { findRefusal } from './ssrf.ts'

export const DEFAULT_FETCH_MAX_BYTES = 16 * 1024 * 1024

/**
 * `ctx.fetchFile` for handlers: GET through the SSRF-guarded dispatcher, size-capped while
 * streaming (a lying Content-Length cannot make us buffer more). Failures become AgentErrors so a
 * handler that lets them through fails its task with a precise code.
 */
export const createFileFetcher =
  (dispatcher: Dispatcher, options: { timeoutMs?: number } = {}): FileFetcher =>
  async (url, { maxBytes = DEFAULT_FETCH_MAX_BYTES, signal }): Promise<FetchedFile> => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new AgentError('FETCH_FAILED', `not an absolute URL: ${url.slice(0, 200)}`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new AgentError(
        'URL_NOT_ALLOWED',
        `only http and https URLs can be fetched, not ${parsed.protocol}`,
      )
    }
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000)
    let response: Dispatcher.ResponseData
    try {
      response = await traced(parsed, (headers) =>
        request(parsed, { dispatcher, headers, signal: AbortSignal.any([signal, timeout]) }),
      )
    } catch (error) {
      const refusal = findRefusal(error)
      if (refusal) throw new AgentError('URL_NOT_ALLOWED', refusal.message)
      throw new AgentError(
        'FETCH_FAILED',
        `GET ${parsed.origin}${parsed.pathname} failed: ${(error as Error).message}`,
      )
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      await response.body.dump()
      throw new AgentError(
        'FETCH_FAILED',
        `GET ${parsed.origin}${parsed.pathname} answered ${response.statusCode}`,
      )
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of response.body) {
      size += (chunk as Buffer).byteLength
      if (size > maxBytes) {
        response.body.destroy()
        throw new AgentError(
          'FILE_TOO_LARGE',
          `${parsed.origin}${parsed.pathname} is larger than ${maxBytes} bytes`,
        )
      }
      chunks.push(chunk as Buffer)
    }
    const type = response.headers['content-type']
    return { url, mediaType: typeof type === 'string' ? type : undefined, bytes: Buffer.concat(chunks) }
  }

/**
 * One CLIENT span (`fetch-file`) per fetch, until the answer's headers; its context goes out as
 * `traceparent`, and an SSRF refusal is recorded on it as a policy decision. No-ops when tracing is off.
 */
const traced = async (
  url: URL,
  send: (headers: Record<string, string>) => Promise<Dispatcher.ResponseData>,
): Promise<Dispatcher.ResponseData> => {
  const span = trace.getTracer('switchboard').startSpan('fetch-file', {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': 'GET', 'url.full': `${url.origin}${url.pathname}` },
  })
  const headers: Record<string, string> = {}
  propagation.inject(trace.setSpan(context.active(), span), headers)
  try {
    const response = await send(headers)
    span.setAttribute('http.response.status_code', response.statusCode)
    return response
  } catch (error) {
    const refusal = findRefusal(error)
    if (refusal) {
      span.setAttribute('switchboard.policy.decision', 'ssrf-refused')
      span.setAttribute('switchboard.policy.reason', refusal.message)
    }
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message })
    throw error
  } finally {
    span.end()
  }
}
