import type { AgentDefinition } from '../../agent/define.ts'
import { compileSchema } from '../../schema/json-schema.ts'
import { toClawpediaCard } from './mapping.ts'
import { ClawpediaCard } from './wire/shapes.ts'

const validateCard = compileSchema(ClawpediaCard)

/** Start-up check: an agent whose card breaks the Clawpedia schema stops the server, naming the field. */
export const assertValidClawpediaCard = (agent: AgentDefinition): void => {
  const card = toClawpediaCard(agent)
  if (agent.notification?.authHeader !== undefined) {
    ;(card.notification_config as { auth_header?: string }).auth_header = agent.notification.authHeader
  }
  const violations = validateCard(card)
  if (violations.length > 0) {
    throw new TypeError(
      `agent "${agent.slug}" has an invalid AgentCard: ${violations.map((v) => v.description).join('; ')}`,
    )
  }
}
