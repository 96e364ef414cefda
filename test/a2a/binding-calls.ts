/**
 * One A2A operation over either binding, answered in one shape, so a test states a behaviour once
 * and runs it on JSON-RPC and HTTP+JSON alike.
 */
import { type Binding, readSse, rest, rpc, V } from './helpers.ts'

/** An answer of either binding: the result, or the error as A2A names it. */
export interface Answer {
  /** The HTTP status (JSON-RPC answers errors with 200). */
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
  result?: any
  error?: { reason: string; message: string; jsonRpcCode?: number; metadata: Record<string, string> }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
const answerOf = (binding: Binding, response: { status: number; headers: Headers; body?: any }): Answer => {
  const { status, headers, body } = response
  if (binding === 'JSONRPC') {
    if (body?.error) {
      const info = body.error.data?.[0] ?? {}
      return {
        status,
        headers,
        error: {
          reason: info.reason,
          message: body.error.message,
          jsonRpcCode: body.error.code,
          metadata: info.metadata ?? {},
        },
      }
    }
    return { status, headers, result: body?.result }
  }
  if (status >= 400) {
    const info = body?.error?.details?.[0] ?? {}
    return {
      status,
      headers,
      error: { reason: info.reason, message: body?.error?.message, metadata: info.metadata ?? {} },
    }
  }
  return { status, headers, result: body }
}

const headersOf = (extra: Record<string, string>) => ({ ...V, ...extra })

export const sendMessage = async (
  binding: Binding,
  base: string,
  request: object,
  headers: Record<string, string> = {},
): Promise<Answer> =>
  answerOf(
    binding,
    binding === 'JSONRPC'
      ? await rpc(base, 'SendMessage', request, headersOf(headers))
      : await rest(base, '/message:send', { body: request, headers }),
  )

export const getTask = async (
  binding: Binding,
  base: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<Answer> =>
  answerOf(
    binding,
    binding === 'JSONRPC'
      ? await rpc(base, 'GetTask', { id }, headersOf(headers))
      : await rest(base, `/tasks/${id}`, { headers }),
  )

/** How many tasks the caller can list: a refused request must leave the count as it was. */
export const taskCount = async (binding: Binding, base: string): Promise<number> => {
  const answer = answerOf(
    binding,
    binding === 'JSONRPC'
      ? await rpc(base, 'ListTasks', { pageSize: 1 })
      : await rest(base, '/tasks?pageSize=1'),
  )
  return answer.result.totalSize as number
}

let streamId = 9000

/** SendStreamingMessage; an error before the first event comes back as `answer`. */
export const streamMessage = async (
  binding: Binding,
  base: string,
  request: object,
  headers: Record<string, string> = {},
) => {
  const stream =
    binding === 'JSONRPC'
      ? await readSse(`${base}/a2a/jsonrpc`, {
          body: { jsonrpc: '2.0', id: ++streamId, method: 'SendStreamingMessage', params: request },
          headers: headersOf(headers),
        })
      : await readSse(`${base}/a2a/rest/message:stream`, {
          method: 'POST',
          body: request,
          headers: headersOf(headers),
        })
  return { ...stream, answer: stream.body === undefined ? undefined : answerOf(binding, stream) }
}

/** SubscribeToTask (REST: POST, or GET with `method`); an error before the first event comes back as `answer`. */
export const subscribe = async (
  binding: Binding,
  base: string,
  id: string,
  options: { headers?: Record<string, string>; method?: 'GET' | 'POST' } = {},
) => {
  const headers = headersOf(options.headers ?? {})
  const stream =
    binding === 'JSONRPC'
      ? await readSse(`${base}/a2a/jsonrpc`, {
          body: { jsonrpc: '2.0', id: ++streamId, method: 'SubscribeToTask', params: { id } },
          headers,
        })
      : await readSse(`${base}/a2a/rest/tasks/${id}:subscribe`, {
          method: options.method ?? 'POST',
          ...((options.method ?? 'POST') === 'POST' && { body: {} }),
          headers,
        })
  return { ...stream, answer: stream.body === undefined ? undefined : answerOf(binding, stream) }
}
