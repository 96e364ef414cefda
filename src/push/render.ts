import { renderA2aPush } from '../dialects/a2a/push-body.ts'
import { toClawpediaNotification } from '../dialects/clawpedia/mapping.ts'
import type { Delivery } from '../model/push.ts'
import type { RenderedNotification, RenderNotification } from './worker.ts'

/** A Clawpedia `auth_header` is one header line ("Authorization: Bearer …"); a bare value means Authorization. */
export const parseAuthHeader = (line: string): [name: string, value: string] => {
  if (/[\r\n]/.test(line)) throw new TypeError('an auth header cannot contain a line break')
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(line)
  return match ? [match[1]!.toLowerCase(), match[2]!] : ['authorization', line.trim()]
}

export interface RenderContext {
  /** The absolute base URL of an agent's mount, for links in payloads (`…/agents/{slug}`). */
  baseUrlOf(agentSlug: string): string
  /** The agent_id (card identity) of an agent slug. */
  agentIdOf(agentSlug: string): string
}

/** Each outbox row in the wire shape of the dialect its endpoint was registered through. */
export const renderNotification =
  (context: RenderContext): RenderNotification =>
  (delivery: Delivery): RenderedNotification => {
    const { target, task, event } = delivery
    if (target.kind === 'a2a') return renderA2aPush(delivery, context.baseUrlOf(task.agent))
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (target.authHeader) {
      const [name, value] = parseAuthHeader(target.authHeader)
      headers[name] = value
    }
    const body = toClawpediaNotification(task, context.agentIdOf(task.agent), event.at)
    return { body: JSON.stringify(body), headers }
  }
