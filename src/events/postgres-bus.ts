import pg from 'pg'
import type { TaskEvent } from '../model/events.ts'
import type { Task } from '../model/task.ts'
import { EVENTS_CHANNEL, parseTaskNotes, WORK_CHANNEL } from '../store/postgres/notify.ts'
import type { EventBus, TaskListener } from './contract.ts'
import { LocalBus } from './local-bus.ts'

export interface PostgresBusOptions {
  connectionString: string
  /** The replicaTag of this replica's PostgresStore: notes it sent were already delivered by publish(). */
  replicaTag: string
  /**
   * The current version (last seq) of each of these tasks that exists: read after a reconnect to
   * catch up on what was committed while the bus could not hear. The store's `versionsOf`.
   */
  readVersions: (taskIds: readonly string[]) => Promise<ReadonlyMap<string, number>>
  /** Reconnect delays: doubling from initialMs up to maxMs. Defaults 100 ms and 10 s. */
  reconnect?: { initialMs?: number; maxMs?: number }
  /** Told when the LISTEN connection fails or cannot be restored yet; the bus keeps trying. */
  onError?: (error: Error) => void
}

/**
 * The bus across replicas. In-process delivery is a LocalBus: publish() hands this process's
 * subscribers the events themselves. Other replicas learn of commits from the NOTIFYs their
 * stores send inside each transaction: one dedicated connection LISTENs and turns every note
 * from another replica into a TaskNote without events (subscribers read the store), and every
 * work note into an onWork call. NOTIFY is not durable: while the connection is down notes are
 * lost, so after reconnecting the bus tells every followed task its current seq and wakes
 * admission once; whoever is behind reads the store and nothing is missed.
 */
export class PostgresBus implements EventBus {
  readonly #local = new LocalBus()
  readonly #options: PostgresBusOptions
  /** Followed tasks, with their subscriber count: the ones to catch up after a reconnect. */
  readonly #followed = new Map<string, number>()
  #client: pg.Client | undefined
  #retry: NodeJS.Timeout | undefined
  #closed = false

  private constructor(options: PostgresBusOptions) {
    this.#options = options
  }

  /** Resolves once the bus is listening, so nothing committed afterwards can be missed. */
  static async connect(options: PostgresBusOptions): Promise<PostgresBus> {
    const bus = new PostgresBus(options)
    bus.#client = await bus.#listen()
    return bus
  }

  /** Whether the LISTEN connection is up (false while reconnecting). */
  get listening(): boolean {
    return this.#client !== undefined
  }

  /** The store already sent the NOTIFY in the committing transaction; here only local delivery. */
  publish(taskId: string, events: readonly TaskEvent[], task?: Task): void {
    this.#local.publish(taskId, events, task)
  }

  subscribe(taskId: string, listener: TaskListener): () => void {
    this.#followed.set(taskId, (this.#followed.get(taskId) ?? 0) + 1)
    const unsubscribe = this.#local.subscribe(taskId, listener)
    let done = false
    return () => {
      if (done) return
      done = true
      unsubscribe()
      const left = (this.#followed.get(taskId) ?? 1) - 1
      if (left > 0) this.#followed.set(taskId, left)
      else this.#followed.delete(taskId)
    }
  }

  /** Local only, like publish: the store announces work to other replicas in the transaction that makes it. */
  announceWork(): void {
    this.#local.announceWork()
  }

  onWork(listener: () => void): () => void {
    return this.#local.onWork(listener)
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = undefined
    this.#followed.clear()
    await this.#local.close()
    await client?.end().catch(() => {})
  }

  async #listen(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.#options.connectionString,
      application_name: 'switchboard-bus',
      keepAlive: true,
    })
    client.on('notification', (message) => this.#onNotification(message))
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client, new Error('the LISTEN connection ended')))
    try {
      await client.connect()
      await client.query(`LISTEN ${EVENTS_CHANNEL}`)
      await client.query(`LISTEN ${WORK_CHANNEL}`)
      return client
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
  }

  #onNotification(message: pg.Notification): void {
    const payload = message.payload ?? ''
    if (message.channel === WORK_CHANNEL) {
      if (payload !== this.#options.replicaTag) this.#local.deliverWork()
      return
    }
    for (const note of parseTaskNotes(payload)) {
      if (note.replicaTag !== this.#options.replicaTag)
        this.#local.deliver({ taskId: note.taskId, seq: note.seq })
    }
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#client !== client || this.#closed) return
    this.#client = undefined
    client.end().catch(() => {})
    this.#options.onError?.(error)
    this.#scheduleReconnect(this.#options.reconnect?.initialMs ?? 100)
  }

  #scheduleReconnect(delayMs: number): void {
    if (this.#closed) return
    this.#retry = setTimeout(() => void this.#reconnect(delayMs), delayMs)
    this.#retry.unref()
  }

  async #reconnect(delayMs: number): Promise<void> {
    let client: pg.Client | undefined
    try {
      client = await this.#listen()
      // Listening first, then reading: a commit between the two is both notified and read.
      const followed = [...this.#followed.keys()]
      const versions = followed.length > 0 ? await this.#options.readVersions(followed) : new Map()
      if (this.#closed) {
        await client.end().catch(() => {})
        return
      }
      this.#client = client
      for (const [taskId, seq] of versions) this.#local.deliver({ taskId, seq })
      this.#local.deliverWork()
    } catch (error) {
      await client?.end().catch(() => {})
      this.#options.onError?.(error as Error)
      this.#scheduleReconnect(Math.min(delayMs * 2, this.#options.reconnect?.maxMs ?? 10_000))
    }
  }
}
