import { newId } from '../model/ids.ts'
import type { Metadata } from '../model/parts.ts'
import type { A2aCard, ClawpediaCard, Discovery } from './card.ts'
import { ClientError } from './errors.ts'
import type { Interfaces } from './interfaces.ts'
import { payloadOf, type SendInput } from './payload.ts'
import { type HandleContext, TaskHandle } from './task-handle.ts'
import type {
  CallOptions,
  InterfaceKind,
  ListQuery,
  PushRegistration,
  RemoteTask,
  Transport,
} from './types.ts'
import type { WebhookReceiver } from './webhooks.ts'

export interface InterfaceInfo {
  kind: InterfaceKind
  url: string
  streaming: boolean
  /** Set for an A2A interface spoken at an older version ('0.3'); absent for 1.0 and Clawpedia. */
  a2aVersion?: string
}

export interface SendOptions extends CallOptions {
  /** A2A: continue this conversation (contextId). */
  contextId?: string
  /** Repeating a send with the same key creates one task (default: a fresh key per call). */
  idempotencyKey?: string
  /** Take an object as the input even if it looks like `{ text }` or `{ message }`. */
  as?: 'input'
  metadata?: Metadata
  /**
   * Follow the task by webhook: the receiver learns the task (so its deliveries are accepted)
   * and the handle's `events()` reads them. A2A agents are given `url` as the task's push config,
   * with the receiver's credentials; Clawpedia agents notify the endpoint their deployment
   * configured (notification_config), which must be the receiver.
   */
  webhook?: { receiver: WebhookReceiver; url: string }
}

const interfaceInfo = (transport: Transport): InterfaceInfo => ({
  kind: transport.kind,
  url: transport.url,
  streaming: transport.streaming,
  ...(transport.a2aVersion && { a2aVersion: transport.a2aVersion }),
})

/**
 * A connected agent: its cards, the interfaces in the order they will be tried, and the task API.
 * Made by `connect()`.
 */
export class Agent {
  readonly #interfaces: Interfaces
  readonly #context: HandleContext
  readonly #discovery: Discovery
  readonly #skipped: readonly string[]

  constructor(options: {
    interfaces: Interfaces
    context: HandleContext
    discovery: Discovery
    skipped: string[]
  }) {
    this.#interfaces = options.interfaces
    this.#context = options.context
    this.#discovery = options.discovery
    this.#skipped = options.skipped
  }

  /** The cards found: the A2A card, the Clawpedia card, or both (our servers serve both). */
  get cards(): { a2a?: A2aCard; clawpedia?: ClawpediaCard } {
    const { a2a, clawpedia } = this.#discovery
    return { ...(a2a && { a2a: a2a.card }), ...(clawpedia && { clawpedia: clawpedia.card }) }
  }

  get discovery(): Discovery {
    return this.#discovery
  }

  get name(): string {
    return this.#discovery.a2a?.card.name ?? this.#discovery.clawpedia?.card.display_name ?? ''
  }

  get description(): string {
    return this.#discovery.a2a?.card.description ?? this.#discovery.clawpedia?.card.description ?? ''
  }

  /** The interface calls go to now (it changes when one cannot be reached). */
  get interface(): InterfaceInfo {
    return interfaceInfo(this.#interfaces.current)
  }

  /** Every usable interface, in the order they are tried. */
  get interfaces(): InterfaceInfo[] {
    return this.#interfaces.all.map(interfaceInfo)
  }

  /** Interfaces the card declares that are not used, with the reason. */
  get skipped(): readonly string[] {
    return this.#skipped
  }

  /** Creates a task. `input` is an input object, `{ text }`, or `{ message }` (see payloadOf). */
  async send(input: SendInput, options: SendOptions = {}): Promise<TaskHandle> {
    const payload = payloadOf(input, options.as)
    const idempotencyKey = options.idempotencyKey ?? newId()
    const push = options.webhook && pushRegistration(options.webhook)
    const pending = options.webhook?.receiver.expect()
    try {
      const task = await this.#interfaces.run((transport) =>
        transport.send(
          {
            payload,
            idempotencyKey,
            ...(options.contextId && { contextId: options.contextId }),
            ...(options.metadata && { metadata: options.metadata }),
            ...(push && transport.dialect === 'a2a' && { push }),
          },
          this.#call(options),
        ),
      )
      const handle = new TaskHandle(this.#context, task)
      options.webhook?.receiver.register(handle)
      return handle
    } finally {
      pending?.done()
    }
  }

  /** A handle for a task that already exists (read once, so an unknown id fails here). */
  async task(id: string, options: CallOptions = {}): Promise<TaskHandle> {
    const task = await this.#interfaces.run((transport) => transport.get(id, this.#call(options)))
    return new TaskHandle(this.#context, task)
  }

  /** A2A ListTasks, every page (Clawpedia has no list operation: UNSUPPORTED_OPERATION). */
  async *list(
    query: Omit<ListQuery, 'pageToken'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<RemoteTask> {
    let pageToken: string | undefined
    do {
      const page = await this.#interfaces.run(
        (transport) => transport.list!({ ...query, ...(pageToken && { pageToken }) }, this.#call(options)),
        (transport) => transport.list !== undefined,
      )
      yield* page.tasks
      if (page.nextPageToken === pageToken) {
        throw new ClientError('PROTOCOL_ERROR', 'ListTasks returned the same page token twice')
      }
      pageToken = page.nextPageToken
    } while (pageToken)
  }

  #call(options: CallOptions): CallOptions {
    return { ...options, timeoutMs: options.timeoutMs ?? this.#context.timeoutMs }
  }
}

/** The receiver's credentials, as an A2A push config's authentication. */
const pushRegistration = (webhook: { receiver: WebhookReceiver; url: string }): PushRegistration => {
  const header = webhook.receiver.authorization()
  if (!header) return { url: webhook.url }
  const [scheme, ...rest] = header.split(' ')
  return {
    url: webhook.url,
    authentication: { scheme: scheme!, ...(rest.length > 0 && { credentials: rest.join(' ') }) },
  }
}
