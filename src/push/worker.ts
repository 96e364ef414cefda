import type { Dispatcher } from 'undici'
import type { Delivery } from '../model/push.ts'
import { TransientMap } from '../model/transient-map.ts'
import { SIGNATURE_HEADER, signPayload } from '../outbound/signing.ts'
import type { DeliveryOutcome, Store } from '../store/contract.ts'
import { type AttemptResult, postNotification } from './attempt.ts'
import { nextDelay } from './backoff.ts'

export interface RenderedNotification {
  body: string
  headers: Record<string, string>
}

/** Turns a delivery into its wire form: the dialect's payload and the target's auth headers. */
export type RenderNotification = (delivery: Delivery) => RenderedNotification | Promise<RenderedNotification>

/** The part of pino the worker uses. */
export interface PushLogger {
  debug(obj: object, msg?: string): void
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export interface PushWorkerOptions {
  store: Store
  /** Every request goes through it: pass the SSRF-guarded dispatcher (tests may pass a MockAgent). */
  dispatcher: Dispatcher
  render: RenderNotification
  /** This replica's id: claims and settlements are made in its name. */
  owner: string
  /** When set, each notification carries a Switchboard-Signature header. */
  signingSecret?: string
  baseMs?: number
  capMs?: number
  maxAttempts?: number
  maxAgeMs?: number
  timeoutMs?: number
  concurrency?: number
  pollMs?: number
  logger?: PushLogger
}

export interface PushStats {
  delivered: number
  retried: number
  dead: number
  inFlight: number
}

interface InFlight {
  done: Promise<void>
  abandon: AbortController
}

const silent: PushLogger = { debug() {}, info() {}, warn() {}, error() {} }

const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return '(invalid URL)'
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const OWN_HEADERS = new Set(['idempotency-key', SIGNATURE_HEADER.toLowerCase()])

/**
 * Drains the push outbox on its own loop, so a slow or dead webhook never holds up a task.
 * Each pass claims as many due deliveries as there are free slots and POSTs them concurrently.
 * The store hands out only the earliest pending delivery of each (task, config), so per-endpoint
 * order holds however the attempts interleave: the worker settles exactly what it claimed.
 * Delivery is at least once; receivers deduplicate with the Idempotency-Key `<taskId>:<configId>:<seq>`.
 */
export class PushWorker {
  readonly #store: Store
  readonly #dispatcher: Dispatcher
  readonly #render: RenderNotification
  readonly #owner: string
  readonly #secret: string | undefined
  readonly #baseMs: number
  readonly #capMs: number
  readonly #maxAttempts: number
  readonly #maxAgeMs: number
  readonly #timeoutMs: number
  readonly #concurrency: number
  readonly #pollMs: number
  readonly #logger: PushLogger
  readonly #inFlight = new TransientMap<string, InFlight>()
  readonly #counts = { delivered: 0, retried: 0, dead: 0 }
  #running = false
  #pumping = false
  #again = false
  #pumpDone: Promise<void> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined

  constructor(options: PushWorkerOptions) {
    this.#store = options.store
    this.#dispatcher = options.dispatcher
    this.#render = options.render
    this.#owner = options.owner
    this.#secret = options.signingSecret
    this.#baseMs = options.baseMs ?? 500
    this.#capMs = options.capMs ?? 60_000
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 12)
    this.#maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000
    this.#timeoutMs = options.timeoutMs ?? 10_000
    this.#concurrency = Math.max(1, options.concurrency ?? 16)
    this.#pollMs = options.pollMs ?? 250
    this.#logger = options.logger ?? silent
  }

  /** A claim outlives the attempt it covers, so no other replica takes a delivery mid-request. */
  get #claimTtlMs(): number {
    return this.#timeoutMs * 2 + 1_000
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    this.wake()
  }

  /** Claims now instead of at the next poll: the engine calls this after appending events. */
  wake(): void {
    if (!this.#running) return
    if (this.#pumping) {
      this.#again = true
      return
    }
    this.#pumping = true
    clearTimeout(this.#timer)
    this.#pumpDone = this.#pump().finally(() => {
      this.#pumping = false
      if (!this.#running) return
      // A wake() that came after the pass's last claim must not wait for the next poll.
      if (this.#again) this.wake()
      else this.#timer = setTimeout(() => this.wake(), this.#pollMs).unref()
    })
  }

  /**
   * Stops claiming, then waits up to `drainMs` for the deliveries in flight. Those still running
   * after that are abandoned unsettled: their claims expire and a worker (this process after a
   * restart, or another replica) sends them again. Nothing touches the store once this resolves.
   */
  async stop({ drainMs = 10_000 }: { drainMs?: number } = {}): Promise<void> {
    this.#running = false
    clearTimeout(this.#timer)
    await this.#pumpDone
    const pending = this.#inFlight.values()
    if (pending.length === 0) return
    let timer: NodeJS.Timeout | undefined
    const drained = await Promise.race([
      Promise.all(pending.map((p) => p.done)).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), drainMs)
      }),
    ])
    clearTimeout(timer)
    if (drained) return
    const left = this.#inFlight.values()
    this.#logger.warn({ abandoned: left.length, drainMs }, 'push: abandoning deliveries still in flight')
    for (const p of left) p.abandon.abort()
    await Promise.all(left.map((p) => p.done))
  }

  stats(): PushStats {
    return { ...this.#counts, inFlight: this.#inFlight.size }
  }

  async #pump(): Promise<void> {
    try {
      do {
        this.#again = false
        const free = this.#concurrency - this.#inFlight.size
        if (!this.#running || free <= 0) return
        const claimed = await this.#store.claimDeliveries({
          owner: this.#owner,
          limit: free,
          ttlMs: this.#claimTtlMs,
        })
        // Claimed rows are ours even if stop() came meanwhile: send them, stop() drains them.
        for (const delivery of claimed) this.#launch(delivery)
        if (claimed.length === free) this.#again = true
      } while (this.#again && this.#running)
    } catch (error) {
      this.#logger.error({ err: messageOf(error) }, 'push: claiming deliveries failed')
    }
  }

  #launch(delivery: Delivery): void {
    // Our own expired claim can come back while the first attempt still runs; let that one finish.
    if (this.#inFlight.has(delivery.id)) return
    const abandon = new AbortController()
    const done = this.#deliver(delivery, abandon.signal)
      .catch((error: unknown) => {
        this.#logger.error({ ...this.#where(delivery), err: messageOf(error) }, 'push: settling failed')
      })
      .finally(() => {
        this.#inFlight.delete(delivery.id)
        // A slot is free, and the next event of this endpoint may have just become claimable.
        this.wake()
      })
    this.#inFlight.set(delivery.id, { done, abandon })
  }

  async #deliver(delivery: Delivery, abandon: AbortSignal): Promise<void> {
    const attempt = delivery.attempts + 1
    let result: AttemptResult
    try {
      const rendered = await this.#render(delivery)
      result = await postNotification({
        dispatcher: this.#dispatcher,
        url: delivery.target.url,
        body: rendered.body,
        headers: this.#headersFor(delivery, rendered),
        timeoutMs: this.#timeoutMs,
        signal: abandon,
      })
    } catch (error) {
      // Rendering the same delivery again would fail the same way.
      result = { outcome: 'dead', error: `rendering the notification failed: ${messageOf(error)}` }
    }
    if (abandon.aborted) return
    const outcome = this.#decide(delivery, attempt, result)
    await this.#store.settleDelivery(this.#owner, delivery.id, outcome)
    const where = {
      ...this.#where(delivery),
      attempt,
      status: 'status' in result ? result.status : undefined,
    }
    switch (outcome.result) {
      case 'delivered':
        this.#counts.delivered += 1
        this.#logger.debug(where, 'push: delivered')
        break
      case 'retry':
        this.#counts.retried += 1
        this.#logger.warn({ ...where, err: outcome.error, retryAt: outcome.retryAt }, 'push: will retry')
        break
      case 'dead':
        this.#counts.dead += 1
        this.#logger.error({ ...where, err: outcome.error }, 'push: gave up')
        break
    }
  }

  #decide(delivery: Delivery, attempt: number, result: AttemptResult): DeliveryOutcome {
    if (result.outcome === 'delivered') return { result: 'delivered' }
    if (result.outcome === 'dead') return { result: 'dead', error: result.error }
    if (attempt >= this.#maxAttempts) {
      return { result: 'dead', error: `${result.error} (gave up after ${attempt} attempts)` }
    }
    const delay =
      result.retryAfterMs ?? nextDelay({ attempt: attempt - 1, baseMs: this.#baseMs, capMs: this.#capMs })
    const now = Date.now()
    const age = now - Date.parse(delivery.createdAt)
    if (age + delay > this.#maxAgeMs) {
      return {
        result: 'dead',
        error: `${result.error} (gave up after ${attempt} attempts: the next one would pass the ${this.#maxAgeMs} ms age limit)`,
      }
    }
    return { result: 'retry', error: result.error, retryAt: new Date(now + delay).toISOString() }
  }

  #headersFor(delivery: Delivery, rendered: RenderedNotification): Record<string, string> {
    const headers: Record<string, string> = {}
    let hasContentType = false
    for (const [name, value] of Object.entries(rendered.headers)) {
      const lower = name.toLowerCase()
      if (OWN_HEADERS.has(lower)) continue
      if (lower === 'content-type') hasContentType = true
      headers[name] = value
    }
    if (!hasContentType) headers['content-type'] = 'application/json'
    // Stable across retries and replicas, and distinct per config: two targets of one event may be
    // one receiver, which must not drop the second as a repeat of the first.
    headers['idempotency-key'] = `${delivery.taskId}:${delivery.configId}:${delivery.seq}`
    if (this.#secret !== undefined) headers[SIGNATURE_HEADER] = signPayload(this.#secret, rendered.body)
    return headers
  }

  /** What identifies a delivery in logs. Never the headers: they carry the receiver's credentials. */
  #where(delivery: Delivery): Record<string, unknown> {
    return {
      deliveryId: delivery.id,
      taskId: delivery.taskId,
      agent: delivery.task.agent,
      seq: delivery.seq,
      origin: originOf(delivery.target.url),
    }
  }
}
