import type { AgentDefinition, AgentSkill } from '../../agent/define.ts'
import { SwitchboardError } from '../../model/errors.ts'
import type { CardSecurity } from '../../web/context.ts'
import { DEFAULT_INPUT_MODES, DEFAULT_OUTPUT_MODES } from './parts.ts'
import {
  A2A_VERSION,
  type A2aAgentCard,
  type A2aAgentSkill,
  type AgentCapabilities,
  type AgentExtension,
  type SecurityRequirement,
} from './wire/shapes.ts'

/** Where each binding lives under an agent's base URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc'
export const REST_PATH = '/a2a/rest'

/** Whether the agent takes A2A push-config operations (declared false: PushNotificationNotSupported). */
export const pushEnabled = (agent: AgentDefinition): boolean => agent.pushNotifications !== false

/** Whether the agent streams over A2A (SendStreamingMessage, SubscribeToTask). */
export const streamingEnabled = (agent: AgentDefinition): boolean => agent.streaming !== false

/** Spec §3.3.4: an agent whose card says it does not stream answers its streams UnsupportedOperation. */
export const assertStreaming = (agent: AgentDefinition): void => {
  if (streamingEnabled(agent)) return
  throw new SwitchboardError(
    'UNSUPPORTED_OPERATION',
    `agent ${agent.slug} does not stream (capabilities.streaming is false): send with SendMessage and read the task with GetTask`,
  )
}

/**
 * Whether the agent serves an Extended Agent Card: it declares one, and the server authenticates
 * callers (the spec lets only callers authenticated by a declared scheme read it).
 */
export const extendedCardEnabled = (agent: AgentDefinition, security: CardSecurity): boolean =>
  agent.extendedCard !== undefined && Object.keys(security.schemes).length > 0

const toA2aSkill = (agent: AgentDefinition, skill: AgentSkill): A2aAgentSkill => {
  const wire: A2aAgentSkill = {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags.length > 0 ? [...skill.tags] : [agent.slug],
  }
  if (skill.examples?.length) wire.examples = [...skill.examples]
  if (skill.inputModes?.length) wire.inputModes = [...skill.inputModes]
  if (skill.outputModes?.length) wire.outputModes = [...skill.outputModes]
  return wire
}

/** An agent without declared skills gets one: itself, tagged with its capabilities. */
const skillsOf = (agent: AgentDefinition): A2aAgentSkill[] => {
  if (agent.skills && agent.skills.length > 0) return agent.skills.map((skill) => toA2aSkill(agent, skill))
  const tags = agent.capabilities?.length ? [...agent.capabilities] : [agent.slug]
  return [{ id: agent.slug, name: agent.name, description: agent.description, tags }]
}

/** In proto field order; `extensions` only when the agent declares some (ProtoJSON omits an empty list). */
const capabilitiesOf = (agent: AgentDefinition, security: CardSecurity): AgentCapabilities => {
  const capabilities: AgentCapabilities = {
    streaming: streamingEnabled(agent),
    pushNotifications: pushEnabled(agent),
  }
  if (agent.extensions?.length) capabilities.extensions = agent.extensions.map(toA2aExtension)
  capabilities.extendedAgentCard = extendedCardEnabled(agent, security)
  return capabilities
}

/** A `false` required is omitted, as ProtoJSON writes a default scalar. */
const toA2aExtension = (extension: NonNullable<AgentDefinition['extensions']>[number]): AgentExtension => {
  const wire: AgentExtension = { uri: extension.uri }
  if (extension.description) wire.description = extension.description
  if (extension.required) wire.required = true
  if (extension.params !== undefined) wire.params = structuredClone(extension.params)
  return wire
}

/**
 * Each authenticator's scheme is one alternative (any of them will do, no scopes required); when
 * callers without credentials are served too, an empty requirement says so.
 */
const requirementsOf = (security: CardSecurity): SecurityRequirement[] => {
  const requirements: SecurityRequirement[] = Object.keys(security.schemes).map((name) => ({
    // An empty scope list is omitted, as ProtoJSON (and so a signature verifier) writes it.
    schemes: { [name]: {} },
  }))
  if (security.anonymous) requirements.push({ schemes: {} })
  return requirements
}

/**
 * The public A2A card of an agent mounted at `baseUrl` (absolute, no trailing slash), with the
 * gRPC binding's interface when the server has one (`grpcAddress`, host:port). The
 * capabilities are what the server really does: it streams and pushes (unless the agent opts
 * out of either), it lists the agent's extensions, it has an extended card when the agent
 * declares one and callers authenticate.
 */
export const toA2aCard = (
  agent: AgentDefinition,
  baseUrl: string,
  security: CardSecurity,
  grpcAddress?: string,
): A2aAgentCard => {
  const card: A2aAgentCard = {
    name: agent.name,
    description: agent.description,
    supportedInterfaces: [
      { url: `${baseUrl}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION },
      { url: `${baseUrl}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_VERSION },
      // One gRPC server serves every agent: the tenant names this one (its slug), root card too.
      ...(grpcAddress === undefined
        ? []
        : [
            {
              url: grpcAddress,
              protocolBinding: 'GRPC' as const,
              protocolVersion: A2A_VERSION,
              tenant: agent.slug,
            },
          ]),
    ],
    version: agent.version,
    capabilities: capabilitiesOf(agent, security),
    defaultInputModes: agent.inputModes?.length ? [...agent.inputModes] : [...DEFAULT_INPUT_MODES],
    defaultOutputModes: agent.outputModes?.length ? [...agent.outputModes] : [...DEFAULT_OUTPUT_MODES],
    skills: skillsOf(agent),
  }
  if (agent.provider) card.provider = { organization: agent.provider.organization, url: agent.provider.url }
  if (agent.documentationUrl) card.documentationUrl = agent.documentationUrl
  if (Object.keys(security.schemes).length > 0) {
    card.securitySchemes = { ...security.schemes }
    card.securityRequirements = requirementsOf(security)
  }
  return card
}

/** The Extended Agent Card: the public card with the agent's extras for authenticated callers. */
export const toA2aExtendedCard = (
  agent: AgentDefinition,
  baseUrl: string,
  security: CardSecurity,
  grpcAddress?: string,
): A2aAgentCard => {
  const card = toA2aCard(agent, baseUrl, security, grpcAddress)
  const extras = agent.extendedCard ?? {}
  if (extras.description !== undefined) card.description = extras.description
  if (extras.skills?.length) card.skills.push(...extras.skills.map((skill) => toA2aSkill(agent, skill)))
  return card
}
