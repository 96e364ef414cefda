import type { A2aCard, A2aInterface } from '../card.ts'
import type { HttpSettings } from '../http.ts'

/** What every A2A transport, of either version and binding, is made of (interfaces.ts builds them). */
export interface A2aTransportOptions {
  /** The card's entry this transport speaks to (a 0.3 entry's `tenant` has no 0.3 counterpart). */
  iface: A2aInterface
  card: A2aCard
  http: HttpSettings
  /** Extensions to activate on every request (A2A-Extensions; X-A2A-Extensions at 0.3). */
  extensions?: readonly string[]
}

/** Whether the agent streams: its card's capability, for every interface of it. */
export const streamsPerCard = (card: A2aCard): boolean => card.capabilities.streaming === true
