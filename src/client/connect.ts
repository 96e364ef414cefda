import type { Dispatcher } from 'undici'
import type { JsonObject } from '../model/events.ts'
import { compileSchema, type Validator } from '../schema/json-schema.ts'
import { Agent } from './agent.ts'
import { type Discovery, discover } from './card.ts'
import type { CardCache } from './card-cache.ts'
import { type CardTrust, checkCardTrust } from './card-trust.ts'
import { type ClientCredentials, OriginCredentials } from './credentials.ts'
import type { DownloadOptions } from './download.ts'
import { ClientError, OutputSchemaError } from './errors.ts'
import { followSettings, type HeartbeatOptions, type PollOptions, type ReconnectOptions } from './follow.ts'
import type { HttpSettings } from './http.ts'
import { Interfaces, selectInterfaces } from './interfaces.ts'
import { OriginPolicy } from './origins.ts'
import type { HandleContext } from './task-handle.ts'
import type { GrpcSettings } from './transports/a2a-grpc.ts'
import { type CallOptions, INTERFACE_KINDS, type InterfaceKind, type RemoteTask } from './types.ts'

export interface ConnectOptions extends CallOptions {
  /** Interface kinds in order of preference. Default ['jsonrpc', 'rest', 'grpc', 'clawpedia']. */
  prefer?: InterfaceKind[]
  /** When set, only these origins are contacted: the agent URL, its cards and every interface. */
  allowOrigins?: string[]
  /**
   * How to authenticate: `credentials.bearer(token)`, `.apiKey(key, header)`, `.oauth2({…})` or
   * `.custom(fn)`. Sent only to the origin of `url`, never to another (see docs/security/client.md).
   */
  credentials?: ClientCredentials
  /** Headers for every request to the agent's origin (like credentials, never sent to another). */
  headers?: Record<string, string>
  /**
   * A2A extension URIs to activate on every A2A request (the `A2A-Extensions` header). The agent
   * activates those its card declares; `send` reports which (`RemoteTask.extensions`).
   */
  extensions?: string[]
  /** Verify the A2A card's signatures against trusted keys (see CardTrust); a badly signed card is refused. */
  cardTrust?: CardTrust
  /** Card cache (ETag revalidation, Cache-Control max-age). Default: one per process; false: none. */
  cache?: CardCache | false
  /** The schema COMPLETED output must satisfy. Default: the Clawpedia card's output_schema; false: none. */
  outputSchema?: JsonObject | false
  /** SSE reconnection: jittered exponential backoff. */
  reconnect?: ReconnectOptions
  /** Expected ping interval; silence for `missed` intervals means a dead stream. */
  heartbeat?: HeartbeatOptions
  /** Polling backoff, for agents that do not stream. */
  poll?: PollOptions
  /** Defaults for downloads (the SSRF guard's allowances and the size cap). */
  download?: Omit<DownloadOptions, 'to' | 'signal' | 'timeoutMs'>
  /** An undici dispatcher for the agent calls (proxies, custom TLS); it does not reach gRPC. */
  dispatcher?: Dispatcher
  /** TLS for gRPC interfaces: a private CA, a client certificate (mTLS). Default: the system CAs. */
  grpc?: GrpcSettings
}

const DEFAULT_TIMEOUT_MS = 30_000

/** The output check: our own agents' outputs always pass; a foreign agent's may not. */
const outputChecker = (
  discovery: Discovery,
  option: JsonObject | false | undefined,
): ((task: RemoteTask) => void) => {
  const schema = option === false ? undefined : (option ?? discovery.clawpedia?.card.output_schema)
  if (!schema) return () => {}
  let validate: Validator
  try {
    validate = compileSchema(schema)
  } catch (error) {
    // A card whose output schema does not compile cannot be held against the agent's outputs.
    discovery.warnings.push(
      `the output schema does not compile and is not checked: ${(error as Error).message}`,
    )
    return () => {}
  }
  return (task) => {
    const violations = validate(task.output ?? {}, '/output')
    if (violations.length > 0) throw new OutputSchemaError(task, violations)
  }
}

/** Extension URIs travel comma-separated in one header: one with a comma or space could not. */
const extensionsOption = (extensions: string[] | undefined): string[] => {
  if (extensions === undefined) return []
  for (const uri of Array.isArray(extensions) ? extensions : [extensions]) {
    if (typeof uri !== 'string' || uri === '' || /[\s,]/.test(uri))
      throw new ClientError(
        'INVALID_REQUEST',
        `extensions must be URIs without commas or spaces; ${JSON.stringify(uri)} is not`,
      )
  }
  return [...new Set(extensions)]
}

/** A card's required extension this client will not activate: every message will be refused. */
const warnRequiredExtensions = (discovery: Discovery, extensions: readonly string[]): void => {
  const declared = discovery.a2a?.card.capabilities.extensions ?? []
  const missing = declared.filter((e) => e.required && e.uri && !extensions.includes(e.uri)).map((e) => e.uri)
  if (missing.length > 0)
    discovery.warnings.push(
      `the agent requires the extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: messages without it are refused (connect with extensions: [...])`,
    )
}

/**
 * Connects to an agent: reads its card (`{url}/.well-known/agent-card.json`, then
 * `{url}/agent-card.json`; `url` may also be a card URL), checks it against its protocol's
 * schema, picks the interfaces to use (preference, then card order; the next one when one cannot
 * be reached) and returns the agent. Cards are cached per HTTP caching rules.
 */
export const connect = async (url: string, options: ConnectOptions = {}): Promise<Agent> => {
  const prefer = options.prefer ?? [...INTERFACE_KINDS]
  const unknown = prefer.filter((kind) => !INTERFACE_KINDS.includes(kind))
  if (prefer.length === 0 || unknown.length > 0) {
    throw new ClientError('INVALID_REQUEST', `prefer must list some of ${INTERFACE_KINDS.join(', ')}`)
  }
  const extensions = extensionsOption(options.extensions)
  const origins = new OriginPolicy(options.allowOrigins)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const http: HttpSettings = {
    credentials: new OriginCredentials(url, {
      ...(options.headers && { headers: options.headers }),
      ...(options.credentials && { credentials: options.credentials }),
    }),
    timeoutMs,
    ...(options.dispatcher && { dispatcher: options.dispatcher }),
  }
  const discovery = await discover(url, {
    http,
    origins,
    wantClawpedia: prefer.includes('clawpedia'),
    ...(options.cache !== undefined && { cache: options.cache }),
    ...(options.signal && { signal: options.signal }),
    timeoutMs,
  })
  await checkCardTrust(discovery, options.cardTrust, {
    http,
    timeoutMs,
    ...(options.signal && { signal: options.signal }),
  })
  warnRequiredExtensions(discovery, extensions)
  const { transports, skipped } = selectInterfaces(discovery, {
    prefer,
    origins,
    http,
    extensions,
    ...(options.grpc && { grpc: options.grpc }),
  })
  if (transports.length === 0) {
    throw new ClientError(
      'NO_USABLE_INTERFACE',
      `the agent at ${url} offers no interface this client can use${skipped.length ? `: ${skipped.join('; ')}` : ''}`,
      { details: { skipped } },
    )
  }
  const context: HandleContext = {
    interfaces: new Interfaces(transports),
    follow: followSettings(options.reconnect, options.heartbeat, timeoutMs),
    poll: options.poll ?? {},
    timeoutMs,
    download: {
      trustedOrigins: [...new Set(transports.map((t) => new URL(t.url).origin))],
      ...(http.credentials && { credentials: http.credentials }),
      timeoutMs,
      ...(options.download && { defaults: options.download }),
    },
    checkOutput: outputChecker(discovery, options.outputSchema),
  }
  return new Agent({ interfaces: context.interfaces, context, discovery, skipped })
}
