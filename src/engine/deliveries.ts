import { SwitchboardError } from '../model/errors.ts'
import type { Delivery, DeliveryState } from '../model/push.ts'
import type { Store } from '../store/contract.ts'

/** The push outbox as an operator sees it (the admin API): list, inspect, count, retry the dead. */
export class Deliveries {
  readonly #store: Store
  readonly #onOutboxWrite: (() => void) | undefined

  constructor(store: Store, onOutboxWrite: (() => void) | undefined) {
    this.#store = store
    this.#onOutboxWrite = onOutboxWrite
  }

  list(query: { state?: DeliveryState; taskId?: string; limit: number }): Promise<Delivery[]> {
    return this.#store.listDeliveries(query)
  }

  async get(deliveryId: string): Promise<Delivery> {
    const delivery = await this.#store.getDelivery(deliveryId)
    if (!delivery) throw new SwitchboardError('DELIVERY_NOT_FOUND', `no delivery ${deliveryId}`)
    return delivery
  }

  async retry(deliveryId: string): Promise<Delivery> {
    const delivery = await this.#store.retryDelivery(deliveryId)
    if (!delivery) {
      await this.get(deliveryId)
      throw new SwitchboardError(
        'INVALID_REQUEST',
        `delivery ${deliveryId} is not dead; only dead deliveries are retried`,
      )
    }
    this.#onOutboxWrite?.()
    return delivery
  }

  count(): Promise<Record<DeliveryState, number>> {
    return this.#store.countDeliveries()
  }
}
