import { type Static, Type } from '@sinclair/typebox'
import { AgentCapabilities, Strings } from './shapes.ts'

/**
 * What a client checks of an A2A 1.0 AgentCard (digest §2.10): the REQUIRED fields of the card,
 * its interfaces and skills, and nothing more, so a card from another server (another binding,
 * extra fields, no skills: §9.6) is still usable. Our own card is the stricter `A2aAgentCard`.
 */
export const CardInterface = Type.Object({
  url: Type.String({ minLength: 1 }),
  protocolBinding: Type.String({ minLength: 1 }),
  protocolVersion: Type.String({ minLength: 1 }),
  tenant: Type.Optional(Type.String()),
})
export type CardInterface = Static<typeof CardInterface>

/** The AgentSkill fields a client needs (the same in 0.3 and 1.0). */
export const CardSkills = Type.Array(
  Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), tags: Strings }),
)

/** In proto field order, so missing fields are named in that order. */
export const CardFields = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  supportedInterfaces: Type.Array(CardInterface, { minItems: 1 }),
  provider: Type.Optional(
    Type.Unsafe<{ organization: string; url: string }>({ type: 'object', required: ['url', 'organization'] }),
  ),
  version: Type.String(),
  capabilities: AgentCapabilities,
  defaultInputModes: Strings,
  defaultOutputModes: Strings,
  skills: CardSkills,
})
export type CardFields = Static<typeof CardFields>
