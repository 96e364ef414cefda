import type { Dispatcher } from 'undici'
import { isObject } from '../model/json.ts'
import { ClientError } from './errors.ts'
import { requestJson } from './http.ts'

/** OAuth 2.0 client credentials grant (RFC 6749 §4.4). */
export interface OAuth2ClientCredentials {
  /** The token endpoint: https, or http on a loopback address only (the client secret travels to it). */
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope?: string
  /** Sent as `audience` (Auth0, Okta and others name the API the token is for this way). */
  audience?: string
  /** How the client authenticates to the token endpoint. Default 'client_secret_basic' (RFC 6749 §2.3.1). */
  authMethod?: 'client_secret_basic' | 'client_secret_post'
  /** Fetch a new token this long before the current one expires. Default 30 000 ms (at most half its lifetime). */
  refreshBeforeMs?: number
  /** Timeout of a token request. Default 30 000 ms. */
  timeoutMs?: number
  dispatcher?: Dispatcher
}

interface Token {
  value: string
  /** Epoch ms after which it is not used; Infinity when the endpoint gave no expires_in. */
  renewAt: number
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i

/** RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded. */
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

/**
 * One client's access token: fetched on first use, shared by every request, fetched again
 * `refreshBeforeMs` before it expires or when a server refuses it. Concurrent requests that
 * need a token wait on the same token request (single flight).
 */
export class OAuth2Token {
  readonly #options: OAuth2ClientCredentials
  #token: Token | undefined
  #pending: Promise<Token> | undefined

  constructor(options: OAuth2ClientCredentials) {
    let url: URL
    try {
      url = new URL(options.tokenUrl)
    } catch {
      throw new ClientError('INVALID_REQUEST', `the OAuth 2.0 tokenUrl "${options.tokenUrl}" is not a URL`)
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
      throw new ClientError(
        'INVALID_REQUEST',
        `the OAuth 2.0 tokenUrl must be https (http only on loopback): ${url.origin}`,
      )
    }
    this.#options = options
  }

  async get(): Promise<string> {
    const token = this.#token
    if (token && Date.now() < token.renewAt) return token.value
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined
    })
    return (await this.#pending).value
  }

  /** A server refused `value`: forget it (unless a newer one replaced it already). True: retry. */
  invalidate(value: string): boolean {
    if (this.#token?.value === value) this.#token = undefined
    return true
  }

  async #fetch(): Promise<Token> {
    const o = this.#options
    const form = new URLSearchParams({ grant_type: 'client_credentials' })
    if (o.scope) form.set('scope', o.scope)
    if (o.audience) form.set('audience', o.audience)
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    }
    if (o.authMethod === 'client_secret_post') {
      form.set('client_id', o.clientId)
      form.set('client_secret', o.clientSecret)
    } else headers.authorization = basic(o.clientId, o.clientSecret)
    const started = Date.now()
    const answer = await requestJson(
      { timeoutMs: o.timeoutMs ?? 30_000, ...(o.dispatcher && { dispatcher: o.dispatcher }) },
      o.tokenUrl,
      { method: 'POST', headers, body: form.toString(), timeoutMs: o.timeoutMs ?? 30_000 },
    ).catch((error: ClientError) => {
      // The token endpoint's failure is not the agent's: no other interface would do better.
      throw new ClientError(error.code, `the OAuth 2.0 token endpoint: ${error.message}`, { cause: error })
    })
    const body = isObject(answer.body) ? answer.body : {}
    if (answer.status !== 200 || typeof body.access_token !== 'string' || body.access_token === '') {
      // RFC 6749 §5.2: error and error_description name the problem; nothing of ours is echoed.
      const why = typeof body.error === 'string' ? body.error : `HTTP ${answer.status}`
      const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : ''
      throw new ClientError('UNAUTHENTICATED', `the OAuth 2.0 token endpoint refused: ${why}${description}`, {
        status: answer.status,
        details: { tokenUrl: o.tokenUrl, ...(typeof body.error === 'string' && { error: body.error }) },
      })
    }
    if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
      throw new ClientError(
        'PROTOCOL_ERROR',
        `the token endpoint issued a ${body.token_type} token, not Bearer`,
      )
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : Infinity
    const early = Math.min(o.refreshBeforeMs ?? 30_000, lifetimeMs / 2)
    const token = { value: body.access_token, renewAt: started + lifetimeMs - early }
    this.#token = token
    return token
  }
}
