import { createHash, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { fromV03Task } from '../dialects/a2a/wire/v03/from-v03.ts'
import { V03Task } from '../dialects/a2a/wire/v03/shapes.ts'
import { isObject } from '../model/json.ts'
import { SIGNATURE_HEADER, verifySignature } from '../outbound/signing.ts'
import { compileSchema } from '../schema/json-schema.ts'
import { pushFeedOf, type TaskHandle } from './task-handle.ts'
import { decodeStreamResponse, decodeTask, taskIdOfStreamResponse } from './transports/a2a-codec.ts'
import { decodeClawpediaNotification } from './transports/clawpedia-codec.ts'
import type { WireItem } from './types.ts'

export interface WebhookReceiverOptions {
  /**
   * The header every delivery must carry, compared in constant time: a header line
   * `Name: value` (a Clawpedia notification_config.auth_header), or `{ header, value }`.
   */
  auth?: string | { header: string; value: string }
  /** When set, deliveries must carry a valid `Switchboard-Signature` (HMAC-SHA256 with this secret). */
  signingSecret?: string
  /** How old a signature may be. Default 300 s. */
  toleranceSeconds?: number
  /**
   * A delivery for a task not yet registered waits this long while a `send()` with this receiver
   * is in flight (a fast agent may notify before the send returns). Default 2000 ms.
   */
  registrationGraceMs?: number
  /** Larger bodies are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number
  /** How many delivery keys are remembered for de-duplication. Default 10 000. */
  dedupeSize?: number
}

export interface WebhookResult {
  status: number
  body: { status: 'accepted' | 'duplicate' } | { error: { code: string; message: string } }
}

export interface IncomingDelivery {
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

type Headers = IncomingDelivery['headers']

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

const refuse = (status: number, code: string, message: string): WebhookResult => ({
  status,
  body: { error: { code, message } },
})

const JSON_TYPES = new Set(['application/json', 'application/a2a+json'])

/**
 * Receives push notifications for the tasks this client created or registered, in both dialects
 * (Clawpedia `task.status.updated` bodies, A2A 1.0 StreamResponse bodies and A2A 0.3 Task bodies), and feeds them to
 * the tasks' handles. Mount it in node:http (`handler`), express (`express`) or fastify
 * (`fastify`), or run it on its own (`listen`).
 *
 * Answers: 200 accepted (or a duplicate, acknowledged again); 401 wrong credentials or signature;
 * 404 a task this receiver does not know (it was not created or registered here); 400 a body
 * that is not a notification; 405 not a POST; 413 too large; 415 not JSON. A sender that retries
 * on 5xx only (ours does) never retries a 4xx, so an unknown task is not delivered again.
 */
export class WebhookReceiver {
  readonly #tasks = new Map<string, TaskHandle>()
  readonly #seen = new Set<string>()
  readonly #options: WebhookReceiverOptions
  readonly #auth: { name: string; expected: Buffer } | undefined
  #pending = 0
  readonly #registered = new Set<() => void>()

  constructor(options: WebhookReceiverOptions = {}) {
    this.#options = options
    if (options.auth !== undefined) {
      const { name, value } = parseAuth(options.auth)
      this.#auth = { name: name.toLowerCase(), expected: digest(value) }
    }
  }

  /** Deliveries for this task are accepted and fed to the handle's `events()`. */
  register(handle: TaskHandle): void {
    this.#tasks.set(handle.id, handle)
    pushFeedOf(handle)
    for (const wake of [...this.#registered]) wake()
  }

  unregister(taskId: string): void {
    this.#tasks.delete(taskId)
  }

  /** A send is in flight: hold deliveries for unknown tasks a moment (see registrationGraceMs). */
  expect(): { done(): void } {
    this.#pending += 1
    let open = true
    return {
      done: () => {
        if (open) this.#pending -= 1
        open = false
      },
    }
  }

  /** The `Authorization` value deliveries must carry, if that is the configured header (for A2A push configs). */
  authorization(): string | undefined {
    if (this.#options.auth === undefined) return undefined
    const { name, value } = parseAuth(this.#options.auth)
    return name.toLowerCase() === 'authorization' ? value : undefined
  }

  /** Checks one delivery and, when it is good and new, feeds it to its task's handle. */
  async receive(delivery: IncomingDelivery): Promise<WebhookResult> {
    const { headers, body } = delivery
    if (this.#auth) {
      const given = header(headers, this.#auth.name)
      // Digests have one length, so the comparison takes the same time whatever was sent.
      if (given === undefined || !timingSafeEqual(digest(given), this.#auth.expected)) {
        return refuse(401, 'UNAUTHENTICATED', 'missing or wrong credentials')
      }
    }
    if (this.#options.signingSecret !== undefined) {
      const valid = verifySignature({
        secret: this.#options.signingSecret,
        header: header(headers, SIGNATURE_HEADER),
        body,
        ...(this.#options.toleranceSeconds !== undefined && {
          toleranceSeconds: this.#options.toleranceSeconds,
        }),
      })
      if (!valid) return refuse(401, 'UNAUTHENTICATED', `missing, stale or wrong ${SIGNATURE_HEADER}`)
    }
    const type = (header(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (!JSON_TYPES.has(type))
      return refuse(415, 'UNSUPPORTED_MEDIA_TYPE', 'send application/json or application/a2a+json')
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      return refuse(400, 'INVALID_JSON', 'the body is not JSON')
    }
    let decoded: { taskId: string; item: WireItem | undefined } | undefined
    try {
      decoded = decode(parsed)
    } catch (error) {
      return refuse(400, 'INVALID_REQUEST', (error as Error).message)
    }
    if (!decoded)
      return refuse(
        400,
        'INVALID_REQUEST',
        'neither a Clawpedia notification, an A2A StreamResponse nor an A2A 0.3 Task',
      )
    const handle = await this.#known(decoded.taskId)
    if (!handle)
      return refuse(404, 'TASK_NOT_FOUND', `task ${decoded.taskId} is not followed by this receiver`)
    const key = header(headers, 'idempotency-key') ?? createHash('sha256').update(body).digest('hex')
    if (this.#seen.has(key)) return { status: 200, body: { status: 'duplicate' } }
    this.#remember(key)
    if (decoded.item) pushFeedOf(handle).push(decoded.item)
    return { status: 200, body: { status: 'accepted' } }
  }

  /** node:http: `createServer(receiver.handler)`. Any path; the body is read here. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): void => {
    void this.#serve(req, res)
  }

  /** express: `app.post('/hooks', receiver.express)`, before any JSON body parser (or after express.raw()). */
  readonly express = (
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    next: (error?: unknown) => void,
  ): void => {
    if (Buffer.isBuffer(req.body)) {
      void this.#answer(req, res, req.body).catch(next)
      return
    }
    if (req.readableEnded) {
      next(
        new Error(
          'the webhook receiver needs the raw body: mount it before express.json(), or after express.raw()',
        ),
      )
      return
    }
    void this.#serve(req, res).catch(next)
  }

  /** fastify: `app.register(receiver.fastify, { prefix: '/hooks' })` (route at the prefix, raw body kept). */
  readonly fastify = async (app: FastifyInstance, options: { path?: string } = {}): Promise<void> => {
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: this.#maxBody }, (_request, body, done) =>
      done(null, body),
    )
    app.post(options.path ?? '/', async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const result = await this.receive({ headers: request.headers, body })
      return reply.code(result.status).send(result.body)
    })
  }

  /** A server of its own on `host:port` (default 127.0.0.1, a free port), answering POSTs at `path`. */
  async listen(
    options: { port?: number; host?: string; path?: string } = {},
  ): Promise<{ url: string; close(): Promise<void> }> {
    const path = options.path ?? '/'
    const server = createServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] !== path) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify(refuse(404, 'METHOD_NOT_FOUND', 'no such path').body))
        return
      }
      this.handler(req, res)
    })
    const host = options.host ?? '127.0.0.1'
    server.listen(options.port ?? 0, host)
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
      close: async () => {
        server.closeAllConnections()
        server.close()
        await once(server, 'close')
      },
    }
  }

  get #maxBody(): number {
    return this.#options.maxBodyBytes ?? 1024 * 1024
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      send(res, refuse(405, 'METHOD_NOT_FOUND', 'deliveries are POSTed'))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > this.#maxBody) {
        send(res, refuse(413, 'PAYLOAD_TOO_LARGE', `the body exceeds ${this.#maxBody} bytes`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    }
    await this.#answer(req, res, Buffer.concat(chunks))
  }

  async #answer(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    if (req.method !== 'POST') {
      send(res, refuse(405, 'METHOD_NOT_FOUND', 'deliveries are POSTed'))
      return
    }
    send(res, await this.receive({ headers: req.headers, body }))
  }

  /** The handle of a task, waiting a moment for one being created right now. */
  async #known(taskId: string): Promise<TaskHandle | undefined> {
    const deadline = Date.now() + (this.#options.registrationGraceMs ?? 2000)
    while (!this.#tasks.has(taskId) && this.#pending > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer)
          this.#registered.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()))
        this.#registered.add(wake)
      })
    }
    return this.#tasks.get(taskId)
  }

  #remember(key: string): void {
    this.#seen.add(key)
    const limit = this.#options.dedupeSize ?? 10_000
    // A Set iterates in insertion order: the oldest keys go first.
    for (const old of this.#seen) {
      if (this.#seen.size <= limit) break
      this.#seen.delete(old)
    }
  }
}

const send = (res: ServerResponse, result: WebhookResult): void => {
  res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body))
}

const parseAuth = (auth: NonNullable<WebhookReceiverOptions['auth']>): { name: string; value: string } => {
  if (typeof auth !== 'string') return { name: auth.header, value: auth.value }
  const colon = auth.indexOf(':')
  if (colon <= 0) throw new TypeError('auth must be a header line "Name: value"')
  return { name: auth.slice(0, colon).trim(), value: auth.slice(colon + 1).trim() }
}

const isV03Task = compileSchema(V03Task)

/**
 * Which task a body is about, and what it says; undefined when it is none of the three: a
 * Clawpedia notification, an A2A 1.0 StreamResponse, or an A2A 0.3 Task (what a 0.3 agent posts).
 */
const decode = (body: unknown): { taskId: string; item: WireItem | undefined } | undefined => {
  const task = decodeClawpediaNotification(body)
  if (task) return { taskId: task.id, item: { kind: 'task', task, snapshot: false } }
  if (isObject(body) && body.kind === 'task' && isV03Task(body).length === 0) {
    const v03 = decodeTask(fromV03Task(body as V03Task))
    return { taskId: v03.id, item: { kind: 'task', task: v03, snapshot: false } }
  }
  const taskId = taskIdOfStreamResponse(body)
  return taskId ? { taskId, item: decodeStreamResponse(body) } : undefined
}

/** A receiver with these options. */
export const createWebhookReceiver = (options: WebhookReceiverOptions = {}): WebhookReceiver =>
  new WebhookReceiver(options)
