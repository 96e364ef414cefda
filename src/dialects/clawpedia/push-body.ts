import type { Delivery } from '../../model/push.ts'
import { toClawpediaNotification } from './mapping.ts'
import { isClawpediaPushTarget } from './push-target.ts'

/** A Clawpedia `auth_header` is one header line ("Authorization: Bearer …"); a bare value means Authorization. */
export const parseAuthHeader = (line: string): [name: string, value: string] => {
  if (/[\r\n]/.test(line)) throw new TypeError('an auth header cannot contain a line break')
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(line)
  return match ? [match[1]!.toLowerCase(), match[2]!] : ['authorization', line.trim()]
}

/**
 * The Clawpedia webhook request for one outbox row: the task as it was at that status change, as
 * JSON, with the target's header line. `agentId` is the card identity of the task's agent.
 */
export const renderClawpediaPush = (
  delivery: Delivery,
  agentId: string,
): { body: string; headers: Record<string, string> } => {
  const { target, task, event } = delivery
  if (!isClawpediaPushTarget(target))
    throw new TypeError(`delivery ${delivery.id} is for a ${target.kind} target, not Clawpedia`)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (target.authHeader) {
    const [name, value] = parseAuthHeader(target.authHeader)
    headers[name] = value
  }
  const body = toClawpediaNotification(task, agentId, event.at)
  return { body: JSON.stringify(body), headers }
}
