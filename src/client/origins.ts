import { ClientError } from './errors.ts'

/**
 * The origins a connection may talk to. A card names its interface URLs, so a card from an
 * allowed origin could otherwise send the client (and its credentials) anywhere.
 * No list means every origin is allowed.
 */
export class OriginPolicy {
  readonly #origins: ReadonlySet<string> | undefined

  constructor(allow?: readonly string[]) {
    this.#origins = allow && new Set(allow.map(originOf))
  }

  allows(url: string): boolean {
    if (!this.#origins) return true
    try {
      return this.#origins.has(new URL(url).origin)
    } catch {
      return false
    }
  }

  assert(url: string, what: string): void {
    if (!this.allows(url)) {
      throw new ClientError('ORIGIN_NOT_ALLOWED', `${what} ${url} is outside the allowed origins`, {
        details: { url, allowed: [...(this.#origins ?? [])] },
      })
    }
  }
}

const originOf = (value: string): string => {
  try {
    const origin = new URL(value).origin
    if (origin === 'null') throw new Error('opaque origin')
    return origin
  } catch {
    throw new ClientError('INVALID_REQUEST', `allowOrigins entry "${value}" is not an http(s) origin`)
  }
}
