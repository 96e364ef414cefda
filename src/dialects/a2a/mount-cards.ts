import { ANONYMOUS, type CallerIdentity } from '../../model/caller.ts'
import { SwitchboardError } from '../../model/errors.ts'
import type { AgentMount, ServerContext } from '../../web/context.ts'
import { extendedCardEnabled, toA2aCard, toA2aExtendedCard } from './card.ts'
import { withV03Fields } from './card-v03.ts'
import type { A2aAgentCard } from './wire/shapes.ts'

/** The cards of one mount, signed when the server signs cards. */
export interface MountCards {
  /**
   * The public card. Serving 0.3 too, it carries the 0.3 fields (card-v03.ts) unless `pure10`:
   * a client that asks for 1.0 (A2A-Version: 1.0) gets the 1.0 card alone, for readers that
   * refuse unknown fields.
   */
  public(options?: { pure10?: boolean }): Promise<A2aAgentCard>
  /** The Extended Agent Card, for this caller (GetExtendedAgentCard). */
  extendedFor(caller: CallerIdentity): Promise<A2aAgentCard>
}

/**
 * Signs a card once per content: signing costs far more than building the card, and a card
 * served with an ETag must keep its bytes (an ECDSA signature differs every time). The card is
 * rebuilt on each call (its URLs follow the public URL) and signed again only when it changed.
 */
const signedOnce = (server: ServerContext, build: () => A2aAgentCard): (() => Promise<A2aAgentCard>) => {
  const { signCard } = server
  if (!signCard) return () => Promise.resolve(build())
  let last: { content: string; signed: Promise<A2aAgentCard> } | undefined
  return () => {
    const card = build()
    const content = JSON.stringify(card)
    if (last?.content !== content) {
      const signed = signCard(card).then((signatures) => ({ ...card, signatures }))
      const entry = { content, signed }
      // A failed signing is not remembered: the next request tries again.
      signed.catch(() => {
        if (last === entry) last = undefined
      })
      last = entry
    }
    return last.signed
  }
}

export const mountCards = (mount: AgentMount, server: ServerContext): MountCards => {
  const agent = mount.agent.definition
  // Serving 0.3 too, each card carries what a 0.3 client reads (card-v03.ts).
  const versions = (card: A2aAgentCard) => (server.a2aV03 ? withV03Fields(card, mount.baseUrl()) : card)
  const extended = signedOnce(server, () =>
    versions(toA2aExtendedCard(agent, mount.baseUrl(), server.cardSecurity, server.grpcAddress?.())),
  )
  const card10 = () => toA2aCard(agent, mount.baseUrl(), server.cardSecurity, server.grpcAddress?.())
  // One signer per variant: each keeps its own last signature.
  const both = signedOnce(server, () => versions(card10()))
  const only10 = signedOnce(server, card10)
  return {
    public: (options) => (options?.pure10 && server.a2aV03 ? only10() : both()),
    /**
     * The card's capability decides (spec §3.8): not declared is UnsupportedOperation. It is
     * declared exactly when the agent has extras and callers authenticate, so an extended card is
     * never declared yet missing (ExtendedAgentCardNotConfigured). An anonymous caller, served
     * when the server also allows those, must authenticate first.
     */
    async extendedFor(caller) {
      if (!extendedCardEnabled(agent, server.cardSecurity)) {
        const why =
          agent.extendedCard === undefined
            ? 'this agent declares no extended agent card'
            : 'this server authenticates no callers, and an extended agent card is only for authenticated ones'
        throw new SwitchboardError(
          'UNSUPPORTED_OPERATION',
          `${why} (capabilities.extendedAgentCard is false)`,
        )
      }
      if (caller.method === ANONYMOUS.method) {
        throw new SwitchboardError(
          'UNAUTHENTICATED',
          'the extended agent card is only for authenticated callers: send credentials of a scheme the card declares',
        )
      }
      return extended()
    },
  }
}
