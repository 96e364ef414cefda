import { ClientError, fromClawpediaError } from '../errors.ts'
import { type HttpSettings, requestJson } from '../http.ts'
import { openEventStream } from '../sse.ts'
import type {
  CallOptions,
  RemoteArtifact,
  RemoteTask,
  SendPayload,
  SendRequest,
  StreamFrame,
  StreamOptions,
  Transport,
} from '../types.ts'
import {
  clawpediaInputOf,
  decodeClawpediaArtifact,
  decodeClawpediaEvent,
  decodeClawpediaTask,
} from './clawpedia-codec.ts'
import { decodeFrames, streamSettings } from './stream-frames.ts'

/**
 * The Clawpedia task protocol at a base URL: the reference's endpoints plus our extensions
 * (POST /tasks/{id}/input, `status` stream events, Last-Event-ID resume, Idempotency-Key).
 */
export class ClawpediaTransport implements Transport {
  readonly kind = 'clawpedia' as const
  readonly dialect = 'clawpedia' as const
  /** The reference mandates the SSE endpoint. */
  readonly streaming = true
  readonly url: string
  readonly #http: HttpSettings

  constructor(options: { baseUrl: string; http: HttpSettings }) {
    this.url = options.baseUrl.replace(/\/+$/, '')
    this.#http = options.http
  }

  async #call(
    method: string,
    path: string,
    call: CallOptions,
    extra: { body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const answer = await requestJson(this.#http, `${this.url}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(extra.body !== undefined && { 'content-type': 'application/json' }),
        ...extra.headers,
      },
      ...(extra.body !== undefined && { body: JSON.stringify(extra.body) }),
      ...call,
    })
    if (answer.status < 200 || answer.status >= 300)
      throw fromClawpediaError(answer.body, answer.status, answer.headers)
    if (answer.body === undefined) {
      throw new ClientError('PROTOCOL_ERROR', `${method} ${path}: the answer is not JSON`, {
        status: answer.status,
      })
    }
    return answer.body
  }

  async send(request: SendRequest, call: CallOptions): Promise<RemoteTask> {
    const body = await this.#call('POST', '/tasks', call, {
      body: { input: clawpediaInputOf(request.payload) },
      headers: { 'idempotency-key': request.idempotencyKey },
    })
    return decodeClawpediaTask(body)
  }

  async get(taskId: string, call: CallOptions): Promise<RemoteTask> {
    return decodeClawpediaTask(await this.#call('GET', `/tasks/${encodeURIComponent(taskId)}`, call))
  }

  async cancel(taskId: string, call: CallOptions): Promise<RemoteTask> {
    // The reference answers 202 with no body defined; ours sends the task, anyone else gets a GET.
    const answer = await requestJson(this.#http, `${this.url}/tasks/${encodeURIComponent(taskId)}/cancel`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      ...call,
    })
    if (answer.status < 200 || answer.status >= 300)
      throw fromClawpediaError(answer.body, answer.status, answer.headers)
    return answer.body === undefined ? this.get(taskId, call) : decodeClawpediaTask(answer.body)
  }

  async provideInput(
    task: Pick<RemoteTask, 'id' | 'contextId'>,
    payload: SendPayload,
    call: CallOptions,
  ): Promise<RemoteTask> {
    const body = await this.#call('POST', `/tasks/${encodeURIComponent(task.id)}/input`, call, {
      body: { input: clawpediaInputOf(payload) },
    })
    return decodeClawpediaTask(body)
  }

  async artifacts(taskId: string, call: CallOptions): Promise<RemoteArtifact[]> {
    const body = (await this.#call('GET', `/tasks/${encodeURIComponent(taskId)}/artifacts`, call)) as {
      artifacts?: unknown
    }
    if (!Array.isArray(body.artifacts))
      throw new ClientError('PROTOCOL_ERROR', 'the artifact list has no artifacts array')
    return body.artifacts.map(decodeClawpediaArtifact)
  }

  async stream(taskId: string, options: StreamOptions): Promise<AsyncIterable<StreamFrame>> {
    const events = await openEventStream(
      this.#http,
      `${this.url}/tasks/${encodeURIComponent(taskId)}/stream`,
      {
        ...streamSettings(options),
        failure: (answer) => fromClawpediaError(answer.body, answer.status, answer.headers),
      },
    )
    return decodeFrames(events, decodeClawpediaEvent)
  }
}
