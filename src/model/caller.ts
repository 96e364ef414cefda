import type { JsonObject } from './events.ts'
import type { Owner, Scope, TaskHeader } from './task.ts'

/**
 * Who is asking, as an authenticator established it for one request. Every task, artifact,
 * stream and push config belongs to the tenant and principal that created it; the store answers
 * another caller's resource exactly like a missing one.
 */
export interface CallerIdentity {
  /** The authenticated subject: an API key's principal, a JWT's mapped claim, a certificate's subject. */
  principal: string
  tenant: string
  /** What the caller may do beyond its own tasks (see SCOPES). */
  scopes: readonly string[]
  /** How the caller was authenticated: `api-key`, `jwt`, `mtls`, or `none` when authentication is off. */
  method: string
  /** Verified claims (JWT) or certificate fields (mTLS), for handlers and policies; never credentials. */
  claims?: JsonObject
}

/** The scopes Switchboard itself understands; agents may define and check their own. */
export const SCOPES = {
  /** Read (get, list, stream, download) every task of the caller's tenant, not only its own. */
  tenantRead: 'tasks:read:tenant',
  /** Act on (answer, cancel, configure push for) every task of the caller's tenant. */
  tenantWrite: 'tasks:write:tenant',
  /** The admin API (/admin): the push outbox of every tenant. */
  admin: 'admin',
} as const

/**
 * The caller of a server started without authentication (loopback by default, or explicitly
 * insecure): one principal in one tenant, the same that every task created before identity
 * existed belongs to, so upgrading keeps old tasks visible.
 */
export const ANONYMOUS: CallerIdentity = Object.freeze({
  principal: 'default',
  tenant: 'default',
  scopes: Object.freeze([]) as readonly string[],
  method: 'none',
})

export const hasScope = (caller: CallerIdentity, scope: string): boolean => caller.scopes.includes(scope)

/** The store scope of a caller's own tasks: whose a task it creates becomes. */
export const scopeOf = (caller: CallerIdentity): Owner => ({ tenant: caller.tenant, owner: caller.principal })

/** Reading a task (get, list, stream, download, read push configs) or acting on it (answer, cancel, configure push). */
export type Access = 'read' | 'write'

const TENANT_WIDE: Readonly<Record<Access, string>> = { read: SCOPES.tenantRead, write: SCOPES.tenantWrite }

/**
 * The tasks a caller may reach for one kind of access: its own, or every task of its tenant when
 * it holds the tenant-wide scope for that access. Never another tenant's.
 */
export const reachOf = (caller: CallerIdentity, access: Access): Scope =>
  hasScope(caller, TENANT_WIDE[access]) ? { tenant: caller.tenant } : scopeOf(caller)

/**
 * Who created a task: the caller recorded with it, or, for a task that has none (created
 * anonymously, or before callers were recorded), the identity its tenant and owner imply.
 */
export const creatorOf = (task: TaskHeader): CallerIdentity =>
  task.caller ?? { principal: task.owner, tenant: task.tenant, scopes: [], method: 'none' }

/**
 * What an agent asks its caller to authorize mid-task (AUTH_REQUIRED). It says where and how;
 * the credential itself travels out of band (the agent's own OAuth callback, a secret slot) and
 * never through Switchboard's messages.
 */
export interface AuthRequirement {
  /** How: e.g. `oauth2`, `openIdConnect`, `apiKey` (the A2A SecurityScheme kinds), or the agent's own word. */
  scheme?: string
  /** Where the caller completes the step, e.g. an OAuth authorization URL. */
  url?: string
  /** What access is asked for, in the scheme's own terms. */
  scopes?: string[]
}
