import type { FastifyRequest } from 'fastify'
import type { Caller } from '../engine/engine.ts'
import { type CallerIdentity, scopeOf } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the server's authentication stage before any handler of a non-public route runs. */
    caller?: CallerIdentity
  }
  interface FastifyContextConfig {
    /** Served without authentication: cards, key sets, probes. Everything else needs a caller. */
    public?: boolean
  }
}

/** Route options of a route anyone may read. */
export const PUBLIC_ROUTE = { config: { public: true } } as const

/** The authenticated caller of a request; a route that reaches here unauthenticated is a server bug. */
export const callerOf = (request: FastifyRequest): CallerIdentity => {
  const { caller } = request
  if (!caller)
    throw new SwitchboardError('INTERNAL', `no caller was established for ${request.method} ${request.url}`)
  return caller
}

/** What the engine is asked as: the caller's own tasks, under one agent's mount. */
export const engineCallerOf = (request: FastifyRequest, agent: string): Caller => ({
  ...scopeOf(callerOf(request)),
  agent,
})
