import type { AgentDefinition } from '../../agent/define.ts'
import { DEFAULT_INPUT_MODES, DEFAULT_OUTPUT_MODES } from './parts.ts'
import { A2A_VERSION, type A2aAgentCard, type A2aAgentSkill } from './wire/shapes.ts'

/** Where each binding lives under an agent's base URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc'
export const REST_PATH = '/a2a/rest'

/** Whether the agent takes A2A push-config operations (declared false: PushNotificationNotSupported). */
export const pushEnabled = (agent: AgentDefinition): boolean => agent.pushNotifications !== false

/** An agent without declared skills gets one: itself, tagged with its capabilities. */
const skillsOf = (agent: AgentDefinition): A2aAgentSkill[] => {
  if (agent.skills && agent.skills.length > 0) {
    return agent.skills.map((skill) => {
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
    })
  }
  const tags = agent.capabilities?.length ? [...agent.capabilities] : [agent.slug]
  return [{ id: agent.slug, name: agent.name, description: agent.description, tags }]
}

/**
 * The public A2A card of an agent mounted at `baseUrl` (absolute, no trailing slash). The
 * capabilities are what the server really does: it streams, it pushes (unless the agent opts
 * out), and it has no extended card.
 */
export const toA2aCard = (agent: AgentDefinition, baseUrl: string): A2aAgentCard => {
  const card: A2aAgentCard = {
    name: agent.name,
    description: agent.description,
    supportedInterfaces: [
      { url: `${baseUrl}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION },
      { url: `${baseUrl}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_VERSION },
    ],
    version: agent.version,
    capabilities: { streaming: true, pushNotifications: pushEnabled(agent), extendedAgentCard: false },
    defaultInputModes: agent.inputModes?.length ? [...agent.inputModes] : [...DEFAULT_INPUT_MODES],
    defaultOutputModes: agent.outputModes?.length ? [...agent.outputModes] : [...DEFAULT_OUTPUT_MODES],
    skills: skillsOf(agent),
  }
  if (agent.provider) card.provider = { organization: agent.provider.organization, url: agent.provider.url }
  if (agent.documentationUrl) card.documentationUrl = agent.documentationUrl
  return card
}
