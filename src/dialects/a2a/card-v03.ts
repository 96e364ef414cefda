import type { JsonObject } from '../../model/events.ts'
import { JSONRPC_PATH, REST_PATH } from './card.ts'
import { A2A_V03 } from './version.ts'
import type { A2aAgentCard } from './wire/shapes.ts'

/** The version a 0.3 card states (0.3 cards carry a full semantic version). */
export const V03_PROTOCOL_VERSION = '0.3.0'

/**
 * What an A2A 0.3 client reads of a card, beside the 1.0 fields (one card serves both: the
 * digest §8). 0.3 has one main `url` and its `preferredTransport`, plus `additionalInterfaces`,
 * which lists the main one too (the 0.3 spec asks for that); its security is OpenAPI-shaped.
 */
export interface V03CardFields {
  protocolVersion: string
  url: string
  preferredTransport: 'JSONRPC'
  additionalInterfaces: { url: string; transport: 'JSONRPC' | 'HTTP+JSON' }[]
  supportsAuthenticatedExtendedCard?: boolean
  security?: Record<string, string[]>[]
}

/**
 * The 0.3 OpenAPI form of a 1.0 SecurityScheme, merged into the same object: a 0.3 reader takes
 * `type` and its fields, a 1.0 reader the one wrapper key; neither schema forbids the other's keys.
 * OAuth2 flows have the same keys and fields in both versions.
 */
const withV03Scheme = (scheme: JsonObject): JsonObject => {
  const inner = (key: string) => scheme[key] as JsonObject | undefined
  const common = (wrapped: JsonObject) => (wrapped.description ? { description: wrapped.description } : {})
  const apiKey = inner('apiKeySecurityScheme')
  if (apiKey)
    return {
      ...scheme,
      type: 'apiKey',
      in: apiKey.location ?? 'header',
      name: apiKey.name ?? '',
      ...common(apiKey),
    }
  const http = inner('httpAuthSecurityScheme')
  if (http) {
    const bearerFormat = http.bearerFormat ? { bearerFormat: http.bearerFormat } : {}
    return { ...scheme, type: 'http', scheme: http.scheme ?? 'Bearer', ...bearerFormat, ...common(http) }
  }
  const oauth2 = inner('oauth2SecurityScheme')
  if (oauth2) {
    const metadata = oauth2.oauth2MetadataUrl ? { oauth2MetadataUrl: oauth2.oauth2MetadataUrl } : {}
    return { ...scheme, type: 'oauth2', flows: oauth2.flows ?? {}, ...metadata, ...common(oauth2) }
  }
  const oidc = inner('openIdConnectSecurityScheme')
  if (oidc)
    return {
      ...scheme,
      type: 'openIdConnect',
      openIdConnectUrl: oidc.openIdConnectUrl ?? '',
      ...common(oidc),
    }
  const mtls = inner('mtlsSecurityScheme')
  if (mtls) return { ...scheme, type: 'mutualTLS', ...common(mtls) }
  return scheme
}

/**
 * The card both versions read: the 1.0 card, its interfaces followed by the same URLs at 0.3
 * (1.0 first: a client that speaks both prefers it), and the 0.3 fields. The JSON-RPC interface
 * is the 0.3 main one, as 0.3 clients default to it. The gRPC interface stays out of the 0.3
 * fields: 0.3's gRPC service is another package (a2a.v1), which this server does not serve.
 */
export const withV03Fields = (card: A2aAgentCard, baseUrl: string): A2aAgentCard & V03CardFields => {
  const jsonrpc = `${baseUrl}${JSONRPC_PATH}`
  const rest = `${baseUrl}${REST_PATH}`
  const out: A2aAgentCard & V03CardFields = {
    ...card,
    supportedInterfaces: [
      ...card.supportedInterfaces,
      { url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: A2A_V03 },
      { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_V03 },
    ],
    protocolVersion: V03_PROTOCOL_VERSION,
    url: jsonrpc,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: jsonrpc, transport: 'JSONRPC' },
      { url: rest, transport: 'HTTP+JSON' },
    ],
  }
  if (card.capabilities.extendedAgentCard) out.supportsAuthenticatedExtendedCard = true
  if (card.securitySchemes) {
    out.securitySchemes = Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, withV03Scheme(scheme)]),
    )
  }
  if (card.securityRequirements) {
    out.security = card.securityRequirements.map((requirement) =>
      Object.fromEntries(
        Object.entries(requirement.schemes).map(([name, scopes]) => [name, scopes.list ?? []]),
      ),
    )
  }
  return out
}
