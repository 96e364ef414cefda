import { renderA2aPush } from '../dialects/a2a/push-body.ts'
import { renderClawpediaPush } from '../dialects/clawpedia/push-body.ts'
import type { Delivery } from '../model/push.ts'
import type { RenderedNotification, RenderNotification } from '../push/worker.ts'

export interface PushRenderContext {
  /** The absolute base URL of an agent's mount, for links in payloads (`…/agents/{slug}`). */
  baseUrlOf(agentSlug: string): string
  /** The agent_id (card identity) of an agent slug. */
  agentIdOf(agentSlug: string): string
}

/**
 * Each outbox row in the wire shape of the dialect its endpoint was registered through (the
 * target's `kind`). A kind no dialect renders fails that delivery (the worker marks it dead with
 * the reason), not the worker.
 */
export const pushRenderers = (context: PushRenderContext): RenderNotification => {
  const renderers = new Map<string, (delivery: Delivery) => RenderedNotification>([
    ['a2a', (delivery) => renderA2aPush(delivery, context.baseUrlOf(delivery.task.agent))],
    ['clawpedia', (delivery) => renderClawpediaPush(delivery, context.agentIdOf(delivery.task.agent))],
  ])
  return (delivery) => {
    const render = renderers.get(delivery.target.kind)
    if (!render) throw new TypeError(`no dialect renders push targets of kind "${delivery.target.kind}"`)
    return render(delivery)
  }
}
