import type { Delivery, PushConfig, PushTarget } from '../model/push.ts'
import type { Scope } from '../model/task.ts'
import type {
  AppendRequest,
  ClaimDeliveriesRequest,
  CreateTaskRequest,
  DeliveryOutcome,
  ListDeliveriesQuery,
  Store,
} from './contract.ts'
import { type Keyring, openTarget, publicPartOf, sealTarget } from './sealing.ts'
import type { OnDemandIndex } from './task-indexes.ts'

/**
 * Any store, with push credentials encrypted at rest (see sealing.ts): targets are sealed on every
 * write path and opened on every read path, so the backend (and its outbox copies, made from the
 * stored configs) only ever holds ciphertext, and no backend or migration changes.
 *
 * A seal that does not open (a key removed from the keyring, a row tampered with) never takes a
 * reader down: a claimed delivery is dead-lettered with the reason, and an operator's or an API
 * read gets the target without its credentials.
 */
export class SealedStore implements Store {
  readonly #inner: Store
  readonly #keyring: Keyring

  constructor(inner: Store, keyring: Keyring) {
    this.#inner = inner
    this.#keyring = keyring
  }

  get backend(): Store['backend'] {
    return this.#inner.backend
  }

  /** The backend underneath, for what is not part of the contract (a PostgreSQL pool size). */
  get inner(): Store {
    return this.#inner
  }

  /** The targets sealed, or undefined when there are none (most tasks: nothing to copy then). */
  #seal(targets: readonly PushTarget[] | undefined): PushTarget[] | undefined {
    if (targets === undefined || targets.length === 0) return undefined
    return targets.map((target) => sealTarget(this.#keyring, target))
  }

  /** Opens a target for a reader that can do without its credentials when the seal fails. */
  #openOrPublic(target: PushTarget): PushTarget {
    try {
      return openTarget(this.#keyring, target)
    } catch {
      return publicPartOf(target)
    }
  }

  #openConfig = (config: PushConfig): PushConfig => ({ ...config, target: this.#openOrPublic(config.target) })

  #openDelivery = (delivery: Delivery): Delivery => ({
    ...delivery,
    target: this.#openOrPublic(delivery.target),
  })

  init(): Promise<void> {
    return this.#inner.init()
  }
  close(): Promise<void> {
    return this.#inner.close()
  }
  ping(): Promise<void> {
    return this.#inner.ping()
  }

  createTask(request: CreateTaskRequest) {
    const pushTargets = this.#seal(request.pushTargets)
    return this.#inner.createTask(pushTargets ? { ...request, pushTargets } : request)
  }
  append(request: AppendRequest) {
    const pushTargets = this.#seal(request.pushTargets)
    return this.#inner.append(pushTargets ? { ...request, pushTargets } : request)
  }
  getTask(scope: Scope, taskId: string) {
    return this.#inner.getTask(scope, taskId)
  }
  listTasks(...args: Parameters<Store['listTasks']>) {
    return this.#inner.listTasks(...args)
  }
  prepareIndex(index: OnDemandIndex) {
    return this.#inner.prepareIndex(index)
  }
  countOpenTasks(scope: Scope) {
    return this.#inner.countOpenTasks(scope)
  }
  createApiKey(...args: Parameters<Store['createApiKey']>) {
    return this.#inner.createApiKey(...args)
  }
  findApiKey(...args: Parameters<Store['findApiKey']>) {
    return this.#inner.findApiKey(...args)
  }
  listApiKeys() {
    return this.#inner.listApiKeys()
  }
  revokeApiKey(...args: Parameters<Store['revokeApiKey']>) {
    return this.#inner.revokeApiKey(...args)
  }
  deleteExpiredTasks(...args: Parameters<Store['deleteExpiredTasks']>) {
    return this.#inner.deleteExpiredTasks(...args)
  }
  deleteExpiredIdempotencyKeys(...args: Parameters<Store['deleteExpiredIdempotencyKeys']>) {
    return this.#inner.deleteExpiredIdempotencyKeys(...args)
  }
  readEvents(taskId: string, afterSeq: number, limit?: number) {
    return this.#inner.readEvents(taskId, afterSeq, limit)
  }
  getArtifact(...args: Parameters<Store['getArtifact']>) {
    return this.#inner.getArtifact(...args)
  }

  claimTasks(...args: Parameters<Store['claimTasks']>) {
    return this.#inner.claimTasks(...args)
  }
  renewLeases(...args: Parameters<Store['renewLeases']>) {
    return this.#inner.renewLeases(...args)
  }
  releaseLease(...args: Parameters<Store['releaseLease']>) {
    return this.#inner.releaseLease(...args)
  }
  expireLeases(...args: Parameters<Store['expireLeases']>) {
    return this.#inner.expireLeases(...args)
  }

  async putPushConfig(scope: Scope, config: PushConfig): Promise<PushConfig> {
    const stored = await this.#inner.putPushConfig(scope, {
      ...config,
      target: sealTarget(this.#keyring, config.target),
    })
    return { ...stored, target: config.target }
  }
  async getPushConfig(scope: Scope, taskId: string, configId: string) {
    const config = await this.#inner.getPushConfig(scope, taskId, configId)
    return config && this.#openConfig(config)
  }
  async listPushConfigs(scope: Scope, taskId: string) {
    return (await this.#inner.listPushConfigs(scope, taskId)).map(this.#openConfig)
  }
  deletePushConfig(...args: Parameters<Store['deletePushConfig']>) {
    return this.#inner.deletePushConfig(...args)
  }

  /** A delivery whose seal does not open is dead-lettered with the reason, never handed to the worker. */
  async claimDeliveries(request: ClaimDeliveriesRequest): Promise<Delivery[]> {
    const opened: Delivery[] = []
    for (const delivery of await this.#inner.claimDeliveries(request)) {
      try {
        opened.push({ ...delivery, target: openTarget(this.#keyring, delivery.target) })
      } catch (error) {
        await this.#inner.settleDelivery(request.owner, delivery.id, {
          result: 'dead',
          error: (error as Error).message,
        })
      }
    }
    return opened
  }
  settleDelivery(owner: string, deliveryId: string, outcome: DeliveryOutcome) {
    return this.#inner.settleDelivery(owner, deliveryId, outcome)
  }
  async listDeliveries(query: ListDeliveriesQuery) {
    return (await this.#inner.listDeliveries(query)).map(this.#openDelivery)
  }
  async getDelivery(deliveryId: string) {
    const delivery = await this.#inner.getDelivery(deliveryId)
    return delivery && this.#openDelivery(delivery)
  }
  async retryDelivery(deliveryId: string) {
    const delivery = await this.#inner.retryDelivery(deliveryId)
    return delivery && this.#openDelivery(delivery)
  }
  countDeliveries() {
    return this.#inner.countDeliveries()
  }
}
