import type { FastifyInstance } from 'fastify'
import { type CallerIdentity, hasScope } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'
import { callerOf } from '../web/caller.ts'

/**
 * Who may call one hosted agent: a caller is let in when it is any listed principal, or holds any
 * listed scope, or belongs to any listed tenant. A rule that lists nothing lets nobody in.
 */
export interface AccessRule {
  principals?: string[]
  scopes?: string[]
  tenants?: string[]
}

/** Rules per agent slug; `*` is the rule of every agent without its own. No rule: every authenticated caller. */
export type AgentAccess = Record<string, AccessRule>

/** A rule for an agent that is not hosted is a typo that would leave the intended agent open: refused at start. */
export const assertAccessSlugs = (access: AgentAccess, slugs: readonly string[]): void => {
  for (const slug of Object.keys(access)) {
    if (slug !== '*' && !slugs.includes(slug))
      throw new TypeError(`access names agent "${slug}", which is not one of the hosted agents`)
  }
}

export const allows = (rule: AccessRule, caller: CallerIdentity): boolean =>
  (rule.principals ?? []).includes(caller.principal) ||
  (rule.scopes ?? []).some((scope) => hasScope(caller, scope)) ||
  (rule.tenants ?? []).includes(caller.tenant)

/**
 * The access check of one agent's mount, after authentication and before any of its routes but
 * the public ones (cards): a caller the rule does not let in is FORBIDDEN, in the error shape of
 * the dialect whose route it reached (fastify hands a hook's error to that route's handler).
 */
export const registerAgentAccess = (app: FastifyInstance, slug: string, access: AgentAccess = {}): void => {
  const rule = Object.hasOwn(access, slug) ? access[slug] : access['*']
  if (!rule) return
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.public === true || allows(rule, callerOf(request))) done()
    else done(new SwitchboardError('FORBIDDEN', `this caller may not call agent ${slug}`))
  })
}
