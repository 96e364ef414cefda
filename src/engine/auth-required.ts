import type { AuthRequest } from '../agent/context.ts'
import type { AuthRequirement } from '../model/caller.ts'
import type { StatusEvent } from '../model/events.ts'
import { newId } from '../model/ids.ts'

/**
 * What the caller's "done" may look like: any object. It is a confirmation, not an input of the
 * agent's schema — and not a place for the credential, which travels out of band.
 */
const AUTH_DONE_SCHEMA = Object.freeze({ type: 'object' })

const URL_CHARS = 2048

/** The AUTH_REQUIRED status `ctx.requireAuth` writes, after checking what the handler passed. */
export const authRequiredStatus = (request: AuthRequest): StatusEvent => {
  if (typeof request !== 'object' || request === null) throw new TypeError('requireAuth() needs { message }')
  const { message, scheme, url, scopes } = request
  if (typeof message !== 'string' || message.length === 0)
    throw new TypeError('requireAuth() needs a non-empty message')
  if (scheme !== undefined && (typeof scheme !== 'string' || scheme.length === 0))
    throw new TypeError('requireAuth() scheme must be a non-empty string')
  if (url !== undefined && !isWebUrl(url))
    throw new TypeError(`requireAuth() url must be an http or https URL of at most ${URL_CHARS} characters`)
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')))
    throw new TypeError('requireAuth() scopes must be an array of strings')
  const auth: AuthRequirement = {}
  if (scheme !== undefined) auth.scheme = scheme
  if (url !== undefined) auth.url = url
  if (scopes !== undefined) auth.scopes = [...scopes]
  const status: StatusEvent = {
    kind: 'status',
    state: 'AUTH_REQUIRED',
    // Clawpedia shows nothing but this text: the URL must be in it.
    prompt: url === undefined || message.includes(url) ? message : `${message} (${url})`,
    inputSchema: { ...AUTH_DONE_SCHEMA },
    messageId: newId(),
  }
  if (Object.keys(auth).length > 0) status.auth = auth
  return status
}

const isWebUrl = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length > URL_CHARS || !URL.canParse(value)) return false
  const { protocol } = new URL(value)
  return protocol === 'https:' || protocol === 'http:'
}
