import { type Static, Type } from '@sinclair/typebox'
import { type CardInterface, CardSkills } from '../card.ts'
import { AgentCapabilities, Strings } from '../shapes.ts'

/**
 * What a client checks of an A2A 0.3 AgentCard (one without 1.0's supportedInterfaces): the
 * fields 0.3 requires to reach the agent and describe it, and nothing more. Its interfaces are the
 * main `url` (in `preferredTransport`, JSONRPC when absent, as 0.3 defines) and the
 * `additionalInterfaces`.
 */
export const V03CardFields = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  url: Type.String({ minLength: 1 }),
  protocolVersion: Type.String({ minLength: 1 }),
  preferredTransport: Type.Optional(Type.String({ minLength: 1 })),
  additionalInterfaces: Type.Optional(
    Type.Array(Type.Object({ url: Type.String({ minLength: 1 }), transport: Type.String({ minLength: 1 }) })),
  ),
  version: Type.String(),
  capabilities: AgentCapabilities,
  defaultInputModes: Strings,
  defaultOutputModes: Strings,
  skills: CardSkills,
})
export type V03CardFields = Static<typeof V03CardFields>

/**
 * A 0.3 card's interfaces as 1.0 AgentInterface entries, the main one first, each named once
 * (0.3 asks `additionalInterfaces` to repeat the main one). The version is the card's.
 */
export const v03Interfaces = (card: V03CardFields): CardInterface[] => {
  const protocolVersion = card.protocolVersion
  const all = [
    { url: card.url, protocolBinding: card.preferredTransport ?? 'JSONRPC', protocolVersion },
    ...(card.additionalInterfaces ?? []).map((i) => ({
      url: i.url,
      protocolBinding: i.transport,
      protocolVersion,
    })),
  ]
  return all.filter(
    (iface, index) =>
      all.findIndex((o) => o.url === iface.url && o.protocolBinding === iface.protocolBinding) === index,
  )
}
