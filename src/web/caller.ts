import type { FastifyRequest } from 'fastify'
import type { Caller } from '../engine/engine.ts'
import { type Access, type CallerIdentity, reachOf } from '../model/caller.ts'
import { SwitchboardError } from '../model/errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the server's authentication stage before any handler of a non-public route runs. */
    caller?: CallerIdentity
  }
  interface FastifyContextConfig {
    /** Served without authentication: cards, key sets, probes. Everything else needs a caller. */
    public?: boolean
    /** Authenticated by the route's own hook, not the generic stage (the admin API: its token). */
    ownAuthentication?: boolean
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

// Literals, not a spread: on Node 20 `{ ...scope, agent }` costs about a microsecond a property.
const engineCallerOf = (request: FastifyRequest, agent: string, access: Access): Caller => {
  const { tenant, owner } = reachOf(callerOf(request), access)
  return owner === undefined ? { tenant, agent } : { tenant, owner, agent }
}

/**
 * What the engine is asked as to read (get, list, stream, download, read push configs) under one
 * agent's mount: the caller's own tasks, or its tenant's with `tasks:read:tenant`.
 */
export const readerOf = (request: FastifyRequest, agent: string): Caller =>
  engineCallerOf(request, agent, 'read')

/**
 * What the engine is asked as to act (answer, cancel, create or delete push configs) under one
 * agent's mount: the caller's own tasks, or its tenant's with `tasks:write:tenant`.
 */
export const writerOf = (request: FastifyRequest, agent: string): Caller =>
  engineCallerOf(request, agent, 'write')

/** A request's reader and writer under one mount, each made on first use: most requests need one. */
export class MountCallers {
  readonly #request: FastifyRequest
  readonly #agent: string
  #reader: Caller | undefined
  #writer: Caller | undefined

  constructor(request: FastifyRequest, agent: string) {
    this.#request = request
    this.#agent = agent
  }

  get reader(): Caller {
    this.#reader ??= readerOf(this.#request, this.#agent)
    return this.#reader
  }

  get writer(): Caller {
    this.#writer ??= writerOf(this.#request, this.#agent)
    return this.#writer
  }
}
