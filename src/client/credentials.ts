import { ClientError } from './errors.ts'
import { type OAuth2ClientCredentials, OAuth2Token } from './oauth2.ts'

export type { OAuth2ClientCredentials }

/** What a custom credential function is asked for: the request's URL and the origin it is bound to. */
export interface CredentialRequest {
  url: string
  origin: string
}

/** Headers to add to one request (e.g. a token from a vault), or undefined for none. */
export type CredentialFunction = (
  request: CredentialRequest,
) => Promise<Record<string, string> | undefined> | Record<string, string> | undefined

/**
 * How a connection proves who it is: a static bearer token, an API key in a header, OAuth 2.0
 * client credentials (a token fetched, cached and refreshed), or a function of your own.
 */
export type ClientCredentials =
  | { bearer: string }
  | { header: string; value: string }
  | { oauth2: OAuth2ClientCredentials }
  | CredentialFunction

/** Builders for the credential kinds, e.g. `connect(url, { credentials: credentials.bearer(token) })`. */
export const credentials = {
  bearer: (token: string): ClientCredentials => ({ bearer: token }),
  apiKey: (value: string, header = 'x-api-key'): ClientCredentials => ({ header, value }),
  oauth2: (options: OAuth2ClientCredentials): ClientCredentials => ({ oauth2: options }),
  custom: (fn: CredentialFunction): ClientCredentials => fn,
} as const

/** The runtime side of a credential: the headers for a request, and what to do when they are refused. */
interface CredentialProvider {
  headers(request: CredentialRequest): Promise<Record<string, string>>
  /** The server refused `sent` (401): true when asking again may give a different credential. */
  refused(sent: Record<string, string>): boolean
}

/** Header values go on the wire as given: one with a line break would smuggle another header. */
const checkedHeaders = (headers: Record<string, string>, what: string): Record<string, string> => {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string' || /[\r\n\0]/.test(value) || !/^[!#$%&'*+.^`|~\w-]+$/.test(name)) {
      throw new ClientError('INVALID_REQUEST', `${what}: header "${name}" is not a valid header`)
    }
    result[name.toLowerCase()] = value
  }
  return result
}

const fixed = (headers: Record<string, string>): CredentialProvider => ({
  headers: async () => headers,
  refused: () => false,
})

const providerOf = (source: ClientCredentials): CredentialProvider => {
  if (typeof source === 'function') {
    return {
      headers: async (request) => checkedHeaders((await source(request)) ?? {}, 'the credential function'),
      // A function may well return a fresh credential: it is asked once more after a 401.
      refused: () => true,
    }
  }
  if ('bearer' in source) return fixed(checkedHeaders({ authorization: `Bearer ${source.bearer}` }, 'bearer'))
  if ('header' in source) return fixed(checkedHeaders({ [source.header]: source.value }, 'the API key'))
  if ('oauth2' in source) {
    const token = new OAuth2Token(source.oauth2)
    return {
      headers: async () => ({ authorization: `Bearer ${await token.get()}` }),
      refused: (sent) => token.invalidate(sent.authorization?.replace(/^Bearer /, '') ?? ''),
    }
  }
  throw new ClientError('INVALID_REQUEST', 'credentials must be bearer, header/value, oauth2 or a function')
}

const originOf = (url: string): string | undefined => {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

/**
 * A connection's credentials, bound to one origin (the agent's: where `connect` was pointed).
 * Every request asks `headersFor(url)`; a URL on any other origin — an artifact on a file host,
 * an interface the card puts elsewhere, a redirect target — gets nothing. Redirects are never
 * followed automatically (http.ts), so each hop is asked again.
 */
export class OriginCredentials {
  readonly origin: string
  readonly #headers: Record<string, string>
  readonly #provider: CredentialProvider | undefined

  constructor(url: string, options: { headers?: Record<string, string>; credentials?: ClientCredentials }) {
    const origin = originOf(url)
    if (!origin) throw new ClientError('INVALID_REQUEST', `"${url}" has no origin to bind credentials to`)
    this.origin = origin
    this.#headers = checkedHeaders(options.headers ?? {}, 'headers')
    this.#provider = options.credentials === undefined ? undefined : providerOf(options.credentials)
  }

  /** Whether requests to `url` carry the credentials. */
  covers(url: string): boolean {
    return originOf(url) === this.origin
  }

  /** The headers for a request to `url`: the connection's own on its origin, none anywhere else. */
  async headersFor(url: string): Promise<Record<string, string>> {
    if (!this.covers(url)) return {}
    const provided = await this.#provider?.headers({ url, origin: this.origin })
    return { ...this.#headers, ...provided }
  }

  /**
   * Whether a gRPC service at `url` (its `http(s)://host:port` form) gets the credentials. A card
   * puts its gRPC service on a port of its own, another origin: it gets them on the agent's own
   * host, and never without TLS when the agent's origin is https.
   */
  coversService(url: string): boolean {
    try {
      const [service, agent] = [new URL(url), new URL(this.origin)]
      return (
        service.hostname === agent.hostname && (agent.protocol === 'http:' || service.protocol === 'https:')
      )
    } catch {
      return false
    }
  }

  /** The headers for a gRPC call to the service at `url` (see coversService). */
  async headersForService(url: string): Promise<Record<string, string>> {
    if (!this.coversService(url)) return {}
    const provided = await this.#provider?.headers({ url, origin: this.origin })
    return { ...this.#headers, ...provided }
  }

  /** A 401 answered a request that carried `sent`: whether one retry with fresh credentials is worth it. */
  refused(sent: Record<string, string>): boolean {
    if (Object.keys(sent).length === 0) return false
    return this.#provider?.refused(sent) ?? false
  }
}
