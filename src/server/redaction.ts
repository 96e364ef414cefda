import type { IncomingHttpHeaders } from 'node:http'
import { type DestinationStream, type Logger, pino } from 'pino'
import type { Authenticator } from '../identity/authenticator.ts'
import { SwitchboardError } from '../model/errors.ts'
import { traceLogFields } from '../observability/tracing.ts'
import { logLines } from './log-lines.ts'
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

const CENSORED = '[Redacted]'
const SET_COOKIE = ['set-cookie']
const SECRET_FIELD_SET: ReadonlySet<string> = new Set(SECRET_FIELDS)
/** How far below a log line's top level a secret field is still found (`*.*.token`). */
const SECRET_FIELD_LEVELS = 2

type Loggable = Record<string, unknown>

/** A shallow copy that keeps what JSON and pino's `err` serializer read (an Error's own message and stack). */
const copyOf = (value: object): Loggable =>
  (Array.isArray(value)
    ? [...value]
    : Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value))) as Loggable

/** `value`, or a copy of it with `names` censored where present: copied only when one is. */
const withCensored = (value: unknown, names: readonly string[]): unknown => {
  if (typeof value !== 'object' || value === null) return value
  let copy: Loggable | undefined
  for (const name of names)
    if ((value as Loggable)[name] !== undefined) {
      copy ??= copyOf(value)
      copy[name] = CENSORED
    }
  return copy ?? value
}

/** `value`, or a copy with every secret field at `level` and below censored: copied only when one is. */
const withoutSecretFields = (value: object, level: number): Loggable => {
  let copy: Loggable | undefined
  for (const key of Object.keys(value)) {
    const field = (value as Loggable)[key]
    let logged = field
    if (SECRET_FIELD_SET.has(key)) {
      if (field !== undefined) logged = CENSORED
    } else if (level < SECRET_FIELD_LEVELS && typeof field === 'object' && field !== null) {
      logged = withoutSecretFields(field, level + 1)
    }
    if (logged !== field) {
      copy ??= copyOf(value)
      copy[key] = logged
    }
  }
  return copy ?? (value as Loggable)
}

/** `holder` (a logged request or response), or a copy whose `headers` has `names` censored. */
const withCensoredHeaders = (holder: unknown, names: readonly string[]): unknown => {
  if (typeof holder !== 'object' || holder === null) return holder
  const headers = (holder as Loggable).headers
  const censored = withCensored(headers, names)
  if (censored === headers) return holder
  const copy = copyOf(holder)
  copy.headers = censored
  return copy
}

/**
 * What a log line may hold: credential headers of a logged request (`req`, `request` or bare
 * `headers`) and a response's `set-cookie` censored, and secret fields up to three levels deep.
 * One pass over the line that copies only what it censors, where pino's path redaction with
 * wildcard paths took 5.9 % of the server's CPU per send in the benchmark's profile.
 */
export const credentialCensor = (headers: readonly string[]): ((line: Loggable) => Loggable) => {
  const censorHeaders = (line: Loggable): Loggable => {
    let censored = line
    const replace = (key: string, value: unknown): void => {
      if (value === line[key]) return
      if (censored === line) censored = copyOf(line)
      censored[key] = value
    }
    replace('headers', withCensored(line.headers, headers))
    replace('req', withCensoredHeaders(line.req, headers))
    replace('request', withCensoredHeaders(line.request, headers))
    replace('res', withCensoredHeaders(line.res, SET_COOKIE))
    return censored
  }
  return (line) => {
    const censored = withoutSecretFields(line, 0)
    const holdsHeaders =
      censored.headers !== undefined ||
      censored.req !== undefined ||
      censored.request !== undefined ||
      censored.res !== undefined
    return holdsHeaders ? censorHeaders(censored) : censored
  }
}

/**
 * The server's default logger: JSON lines with every credential censored, to standard output unless
 * `destination` says where (log-lines.ts: a turn's lines written together at its end). With
 * `traceIds` (tracing on), each line written inside a traced request or run carries its `trace_id`
 * and `span_id`; without, no per-line hook is installed at all.
 */
export const createServerLogger = (options: {
  level: string
  authenticators: readonly Authenticator[]
  destination?: DestinationStream
  traceIds?: boolean
}): Logger => {
  const censor = credentialCensor(credentialHeaders(options.authenticators))
  const logger = pino(
    {
      level: options.level,
      formatters: { log: censor },
      ...(options.traceIds && { mixin: traceLogFields }),
    },
    options.destination ?? logLines({ fd: 1 }),
  )
  // pino gives a child's bindings to no formatter: they are censored on the way in. Every
  // descendant inherits this method, since a pino child is an object whose prototype is its parent.
  const child = logger.child
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, censor(bindings), childOptions)
  } as Logger['child']
  return logger
}

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
