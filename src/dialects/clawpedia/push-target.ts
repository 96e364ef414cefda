import type { AgentDefinition } from '../../agent/define.ts'
import type { PushTarget } from '../../model/push.ts'

/**
 * The endpoint of an agent's notification_config, notified of status changes. `authHeader` is one
 * header line ("Authorization: Bearer …"), sent with every notification.
 */
export interface ClawpediaPushTarget extends PushTarget {
  kind: 'clawpedia'
  authHeader?: string
}

export const isClawpediaPushTarget = (target: PushTarget): target is ClawpediaPushTarget =>
  target.kind === 'clawpedia'

/** Where every task of an agent notifies, whichever dialect created it: its notification_config. */
export const clawpediaDefaultTargets = (definition: AgentDefinition): ClawpediaPushTarget[] => {
  const { notification } = definition
  if (!notification) return []
  const target: ClawpediaPushTarget = { kind: 'clawpedia', url: notification.endpointUrl }
  if (notification.authHeader !== undefined) target.authHeader = notification.authHeader
  return [target]
}
