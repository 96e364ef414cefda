import type { IncomingHttpHeaders } from 'node:http'
import { type DestinationStream, type Logger, pino } from 'pino'
import type { Authenticator } from '../identity/authenticator.ts'
import { SwitchboardError } from '../model/errors.ts'
import { traceLogFields } from '../observability/tracing.ts'
import type { SwitchboardOptions } from './server.ts'

/** Request headers that carry credentials whatever the configuration. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key']

/** Fields that hold a credential wherever they appear: push targets, OAuth settings, API keys. */
const SECRET_FIELDS = [
  'token',
  'credentials',
  'authHeader',
  'clientSecret',
  'client_secret',
  'apiKey',
  'password',
]

/**
 * The header an API key authenticator reads, from its card security scheme: A2A 1.0
 * (`apiKeySecurityScheme: { location, name }`) or the OpenAPI form (`{ type: 'apiKey', in, name }`).
 */
const apiKeyHeaderOf = (authenticator: Authenticator): string | undefined => {
  const scheme = authenticator.securityScheme as Record<string, unknown>
  const apiKey = (scheme.apiKeySecurityScheme ?? scheme) as {
    location?: unknown
    in?: unknown
    name?: unknown
  }
  const where = apiKey.location ?? apiKey.in
  return where === 'header' && typeof apiKey.name === 'string' ? apiKey.name.toLowerCase() : undefined
}

/** Every header that carries a credential with these authenticators. */
export const credentialHeaders = (authenticators: readonly Authenticator[]): string[] => [
  ...new Set([...CREDENTIAL_HEADERS, ...authenticators.flatMap((a) => apiKeyHeaderOf(a) ?? [])]),
]

/** The pino redaction paths: credential headers of a logged request, secret fields up to three levels deep. */
export const redactPaths = (headers: readonly string[]): string[] => [
  ...headers.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`, `request.headers["${h}"]`]),
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
]

/**
 * The server's default logger: JSON lines with every credential censored. With `traceIds` (tracing
 * on), each line written inside a traced request or run carries its `trace_id` and `span_id`;
 * without, no per-line hook is installed at all.
 */
export const createServerLogger = (options: {
  level: string
  authenticators: readonly Authenticator[]
  destination?: DestinationStream
  traceIds?: boolean
}): Logger =>
  pino(
    {
      level: options.level,
      redact: { paths: redactPaths(credentialHeaders(options.authenticators)) },
      ...(options.traceIds && { mixin: traceLogFields }),
    },
    options.destination,
  )

/**
 * The logger a server writes with: the one given, silence for `false`, or the default logger at
 * `logLevel` (`info`), with trace ids on its lines when the server traces.
 */
export const serverLoggerOf = (
  options: Pick<SwitchboardOptions, 'logger' | 'logLevel' | 'identity' | 'tracing'>,
): Logger => {
  if (options.logger === false) return pino({ level: 'silent' })
  return (
    options.logger ??
    createServerLogger({
      level: options.logLevel ?? 'info',
      authenticators: options.identity?.authenticators ?? [],
      traceIds: options.tracing !== undefined,
    })
  )
}

/**
 * An authentication failure as the client may see it: whatever an authenticator put in its message,
 * no credential the request presented comes back (a custom authenticator may quote what it refused).
 */
export const withoutCredentials = (
  error: unknown,
  headers: IncomingHttpHeaders,
  names: readonly string[],
): unknown => {
  if (!(error instanceof SwitchboardError)) return error
  const presented = names
    .flatMap((name) => [headers[name]].flat())
    .filter((value): value is string => typeof value === 'string' && value.length > 0)
    // The header, and each of its words of some length ("Bearer <token>": the token alone too).
    .flatMap((value) => [value, ...value.split(/[\s;,=]+/).filter((word) => word.length >= 8)])
  if (
    !presented.some(
      (value) => error.message.includes(value) || JSON.stringify(error.details ?? {}).includes(value),
    )
  )
    return error
  return new SwitchboardError(error.code, 'the credential was refused')
}
