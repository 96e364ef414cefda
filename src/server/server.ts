import Fastify, { type FastifyInstance, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { AgentDefinition, NotificationConfig } from '../agent/define.ts'
import { assertValidClawpediaCard } from '../dialects/clawpedia/card-check.ts'
import { clawpediaDefaultTargets } from '../dialects/clawpedia/push-target.ts'
import { Engine, type EngineOptions } from '../engine/engine.ts'
import { LIMITS } from '../engine/limits.ts'
import { AgentRegistry } from '../engine/registry.ts'
import { type RetentionOptions, RetentionSweeper } from '../engine/retention.ts'
import type { EventBus } from '../events/contract.ts'
import { type TracingOptions, tracerOf } from '../observability/tracing.ts'
import { registerRequestTracing } from '../observability/tracing-http.ts'
import { createFileFetcher } from '../outbound/fetch-file.ts'
import { assertUrlAllowed, createGuardedDispatcher } from '../outbound/ssrf.ts'
import { PushWorker, type PushWorkerOptions } from '../push/worker.ts'
import type { Store } from '../store/contract.ts'
import { watchStorageFull } from '../store/storage-full.ts'
import type { AgentMount, ServerContext } from '../web/context.ts'
import { Heartbeats } from '../web/sse.ts'
import { type AgentAccess, assertAccessSlugs } from './access.ts'
import { type AdminOptions, adminRoutes } from './admin-routes.ts'
import { type ArtifactOptions, inlineFileBytesOf } from './artifacts.ts'
import { authenticationOf, type IdentityOptions, registerAuthentication } from './authentication.ts'
import { type CardSigningOptions, JWKS_PATH, jwksRoutes, loadCardSigning } from './card-signing.ts'
import { clientErrorHandler } from './client-errors.ts'
import {
  applyConnectionCap,
  type ConnectionOptions,
  connectionsOf,
  fastifyConnectionOptionsOf,
  nodeServerOptionsOf,
} from './connections.ts'
import { consoleRoutes } from './console.ts'
import { DEFAULTS } from './defaults.ts'
import {
  checkExposure,
  httpsOptionsOf,
  INSECURE_WARNING,
  identityWithTls,
  type TlsOptions,
} from './exposure.ts'
import { createGrpcServer, type GrpcOptions, grpcPortOf, type SwitchboardGrpc } from './grpc.ts'
import { grpcAccess } from './grpc-access.ts'
import { registerJsonParsers } from './json-body.ts'
import { type LimitsOptions, limitsOf, rateLimitOf, registerRateLimit } from './limits.ts'
import { serverMetrics } from './metrics-route.ts'
import { registerAgentMounts } from './mounts.ts'
import { openStore } from './open-store.ts'
import { registerOversizedBodyDrain } from './oversized-body.ts'
import { pushRenderers } from './push-renderers.ts'
import { serverLoggerOf } from './redaction.ts'
import { pingStore, rootRoutes } from './root-routes.ts'
import { type SecretsOptions, sealedStoreOf } from './secrets.ts'

export interface SwitchboardOptions {
  agents: AgentDefinition[]
  /** Where the SQLite database lives when no `store` is given. */
  dataDir?: string
  /** A store, or a PostgreSQL URL (`postgres://…`) to run as one of several replicas. Default: SQLite in dataDir. */
  store?: Store | string
  /** Needed with a custom store shared by several processes; derived for a PostgreSQL URL. */
  bus?: EventBus
  /** With a PostgreSQL URL as `store`: the connections this replica's pool keeps (default 10). */
  postgres?: { poolSize?: number }
  host?: string
  port?: number
  /** The URL clients use to reach this server; defaults to http://{host}:{port}. */
  publicUrl?: string
  /** The slug of the agent also served at the root (default: the first agent). */
  defaultAgent?: string
  /** Clawpedia notification targets per agent slug (deployment configuration). */
  notifications?: Record<string, NotificationConfig>
  /** Idle time before an SSE stream gets a ping. */
  pingMs?: number
  /** How long an SSE client may stay backpressured before it is dropped. */
  stallMs?: number
  /** The largest request body accepted, in bytes. */
  bodyLimit?: number
  /** Header, request and keep-alive timeouts and the connection cap (docs/limits.md). */
  connections?: ConnectionOptions
  /** How artifacts are sent: `inlineFileBytes`, the largest file sent in the part itself. */
  artifacts?: ArtifactOptions
  engine?: Pick<EngineOptions, 'concurrency' | 'leaseMs' | 'pollMs' | 'shutdownGraceMs' | 'replicaId'>
  a2a?: {
    /** Take a request without A2A-Version as 1.0 rather than 0.3 (default false, as the spec says). */
    assumeVersionWhenMissing?: boolean
    /** Serve A2A 0.3 beside 1.0 (default true); off, 0.3 requests are VersionNotSupportedError. */
    v03?: boolean
    /** Whether a repeated messageId deduplicates (default true); turn it off for peers that reuse ids. */
    messageIdDedupe?: boolean
  }
  /**
   * How long an idempotency key (an A2A messageId, a Clawpedia Idempotency-Key) dedupes, in ms;
   * past it the key is forgotten. Default LIMITS.idempotencyWindowMs (24 h).
   */
  idempotencyWindowMs?: number
  /** The gRPC binding of A2A 1.0: its port (default HTTP port + 1, or `off`) and reflection. */
  grpc?: GrpcOptions
  /** Who may call: authenticators and whether callers without credentials are served. */
  identity?: IdentityOptions
  /** Requests per minute and open tasks per principal (docs/security/limits.md); default: none on loopback, generous elsewhere. */
  limits?: LimitsOptions
  /** Keys that encrypt push credentials at rest (docs/security/secrets.md). */
  secrets?: SecretsOptions
  /** Sign the A2A cards (JWS over their JCS form) and publish the keys at /.well-known/jwks.json. */
  cardSigning?: CardSigningOptions
  /**
   * Who may call which hosted agent, per slug (`*`: every agent without its own rule); no rule:
   * every authenticated caller. See docs/security/authorization.md.
   */
  access?: AgentAccess
  /** Serve HTTPS with this certificate; with `clientCa`, callers may authenticate by client certificate. */
  tls?: TlsOptions
  /**
   * Listen on a non-loopback address with no authenticator (every caller anonymous, seeing every
   * task). Refused unless set; then warned about on every start. See docs/security/tls.md.
   */
  insecureNoAuth?: boolean
  /** The operator API under /admin (push deliveries). */
  admin?: AdminOptions
  /** Serve the operator console at /console (docs/console.md); default true. */
  console?: boolean
  /**
   * What outbound requests (push endpoints, `ctx.fetchFile`) may reach beyond public addresses:
   * CIDRs or host names. Empty by default: loopback, private, link-local and metadata are refused.
   */
  outbound?: { allow?: string[] }
  /** Push delivery tuning; `signingSecret` adds a Switchboard-Signature header to every notification. */
  push?: Partial<
    Pick<
      PushWorkerOptions,
      | 'signingSecret'
      | 'baseMs'
      | 'capMs'
      | 'maxAttempts'
      | 'maxAgeMs'
      | 'timeoutMs'
      | 'concurrency'
      | 'pollMs'
    >
  > & { drainMs?: number }
  /** Deletes finished tasks older than `maxAgeMs` in the background (docs/deployment.md). Off when absent. */
  retention?: RetentionOptions
  /** A pino logger, or false for silence. Default: JSON lines to stdout at `logLevel`. */
  logger?: Logger | false
  /** The default logger's level (`info`). */
  logLevel?: string
  /** Trace every request to this provider (docs/observability.md); absent, nothing is traced. */
  tracing?: TracingOptions
}

export { DEFAULTS }

export interface Switchboard {
  app: FastifyInstance
  engine: Engine
  store: Store
  /** Starts listening; resolves with the public base URL. */
  listen(): Promise<string>
  url(): string
  /** `host:port` of the gRPC binding once listening; undefined when gRPC is off. */
  grpcAddress(): string | undefined
  close(): Promise<void>
}

/** Assembles a Switchboard server: store, engine, and every agent mounted under both dialects. */
export const createSwitchboard = async (options: SwitchboardOptions): Promise<Switchboard> => {
  const definitions = options.agents.map((agent) => {
    const notification = options.notifications?.[agent.slug]
    return notification ? ({ ...agent, notification } as AgentDefinition) : agent
  })
  for (const agent of definitions) assertValidClawpediaCard(agent)
  const agents = new AgentRegistry(definitions)
  const defaultSlug = options.defaultAgent ?? definitions[0]!.slug
  if (!agents.has(defaultSlug))
    throw new TypeError(`the default agent "${defaultSlug}" is not one of the hosted agents`)
  assertAccessSlugs(
    options.access ?? {},
    definitions.map((agent) => agent.slug),
  )
  const inlineFileBytes = inlineFileBytesOf(options.artifacts)
  const host = options.host ?? DEFAULTS.host
  const idempotencyWindowMs = options.idempotencyWindowMs ?? LIMITS.idempotencyWindowMs
  if (!Number.isSafeInteger(idempotencyWindowMs) || idempotencyWindowMs <= 0)
    throw new TypeError(
      `idempotencyWindowMs must be a whole number of ms above 0, got ${idempotencyWindowMs}`,
    )
  const identity = identityWithTls(options.identity, options.tls)
  const exposed = checkExposure({
    host,
    authenticated: (identity?.authenticators?.length ?? 0) > 0 || identity?.apiKeys !== undefined,
    insecureNoAuth: options.insecureNoAuth ?? false,
  })

  const logger: Logger = serverLoggerOf(options)
  const opened = await openStore({ ...options, log: logger })
  const { bus } = opened
  const store = sealedStoreOf(opened.store, {
    options: options.secrets,
    // The embedded store keeps a generated key beside its database; a shared one needs a configured key.
    ...(options.store === undefined && { dataDir: options.dataDir ?? DEFAULTS.dataDir }),
    logger,
  })
  const heartbeats = new Heartbeats(options.pingMs ?? DEFAULTS.pingMs)
  const tracer = tracerOf(options.tracing?.tracerProvider) // a no-op tracer when tracing is off
  const observed = serverMetrics({ store, logger, heartbeats, tracer, defaultAgent: defaultSlug })
  // What the engine and push worker write through: a full disk is STORAGE_FULL (/readyz hears of it).
  const writer = observed.observe(watchStorageFull(store))
  const authentication = authenticationOf(identity, store)
  const policy = { allow: options.outbound?.allow ?? [] }
  const dispatcher = createGuardedDispatcher(policy)
  const replicaId = options.engine?.replicaId ?? `replica-${process.pid}-${Date.now().toString(36)}`
  let port = options.port ?? DEFAULTS.port
  const grpcPort = grpcPortOf(options.grpc, port)
  let grpc: SwitchboardGrpc | undefined
  const publicUrl = (): string =>
    (
      options.publicUrl ??
      `${options.tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`
    ).replace(/\/+$/, '')

  const limits = limitsOf(options.limits, host)
  const { drainMs = 5_000, ...pushOptions } = options.push ?? {}
  // Always on: keys past their window go even when finished tasks are kept forever.
  const sweeper = new RetentionSweeper({ ...options.retention, idempotencyWindowMs, store, logger })
  const worker = new PushWorker({
    store: writer,
    dispatcher,
    owner: replicaId,
    logger,
    render: pushRenderers({
      baseUrlOf: (slug) => `${publicUrl()}/agents/${slug}`,
      agentIdOf: (slug) => (agents.has(slug) ? agents.get(slug).definition.id : slug),
    }),
    ...pushOptions,
  })

  const engine = new Engine({
    store: writer,
    bus,
    agents,
    singleProcess: store.backend !== 'postgres',
    logger: observed.engineLogger,
    fetchFile: createFileFetcher(dispatcher),
    onOutboxWrite: () => worker.wake(),
    defaultPushTargets: clawpediaDefaultTargets,
    inlineFileBytes,
    ...(limits.openTasks > 0 && { maxOpenTasks: limits.openTasks }),
    idempotencyWindowMs,
    ...options.engine,
    replicaId,
  })

  const cardSigning =
    options.cardSigning && (await loadCardSigning(options.cardSigning, () => `${publicUrl()}${JWKS_PATH}`))
  const server: ServerContext = {
    engine,
    heartbeats,
    stallMs: options.stallMs ?? DEFAULTS.stallMs,
    publicUrl,
    grpcAddress: () => grpc?.address(),
    startedAt: new Date(),
    countHandlerError: (code) => observed.metrics.handlerErrors.inc({ code }),
    logger,
    a2aAssumeVersion: options.a2a?.assumeVersionWhenMissing ?? false,
    a2aV03: options.a2a?.v03 ?? true,
    a2aMessageIdDedupe: options.a2a?.messageIdDedupe ?? true,
    checkOutboundUrl: (url) => assertUrlAllowed(url, policy),
    cardSecurity: {
      schemes: Object.fromEntries(authentication.authenticators.map((a) => [a.name, a.securityScheme])),
      anonymous: authentication.authenticators.length > 0 && authentication.anonymous !== undefined,
    },
    ...(cardSigning && { signCard: cardSigning.signCard }),
  }

  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit
  const connections = connectionsOf(options.connections)
  const nodeOptions = nodeServerOptionsOf(connections)
  const app = Fastify({
    loggerInstance: logger,
    // Off: metrics-route.ts writes one access line per request instead (docs/observability.md).
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request: nothing logs through request.log, and a child costs time on
    // every request and memory for as long as a stream stays open.
    childLoggerFactory: (parent) => parent,
    bodyLimit,
    clientErrorHandler: clientErrorHandler(logger),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ...fastifyConnectionOptionsOf(connections),
    ...(options.tls ? { https: { ...httpsOptionsOf(options.tls), ...nodeOptions } } : { http: nodeOptions }),
  }) as unknown as FastifyInstance
  applyConnectionCap(app.server, connections)
  observed.observeRequests(app)
  registerJsonParsers(app)
  registerOversizedBodyDrain(app, bodyLimit)
  // Before authentication, so that refused requests are traced too.
  if (options.tracing) registerRequestTracing(app, tracer, defaultSlug)
  registerAuthentication(app, authentication, logger)
  const rateLimit = rateLimitOf(limits)
  registerRateLimit(app, rateLimit)

  const mounts: AgentMount[] = agents.all().map((agent) => {
    const prefix = `/agents/${agent.definition.slug}`
    return { agent, prefix, baseUrl: () => `${publicUrl()}${prefix}` }
  })
  const defaultMount: AgentMount = { agent: agents.get(defaultSlug), prefix: '', baseUrl: publicUrl }
  await app.register(rootRoutes, { mounts, defaultSlug, server })
  await app.register(adminRoutes, {
    server,
    access: { ...options.admin, authentication, publicUrl },
    prefix: '/admin',
  })
  await observed.register(app, { server, access: { ...options.admin, authentication, publicUrl } })
  if (cardSigning) await app.register(jwksRoutes, { jwks: cardSigning.jwks, server })
  await registerAgentMounts(app, { mounts: [...mounts, defaultMount], server, access: options.access })
  if (options.console !== false) await app.register(consoleRoutes, { logger })

  if (grpcPort !== undefined) {
    grpc = createGrpcServer({
      port: grpcPort,
      host,
      publicHost: () => new URL(publicUrl()).hostname,
      tls: options.tls,
      maxMessageBytes: bodyLimit,
      reflection: options.grpc?.reflection ?? false,
      binding: grpcAccess({
        server,
        mounts,
        defaultMount,
        authentication,
        access: options.access,
        rateLimit,
      }),
      ready: () => pingStore(server).then(() => true),
      logger,
      ...(options.tracing && { tracing: { tracer, defaultAgent: defaultSlug } }),
    })
  }

  return {
    app,
    engine,
    store,
    async listen() {
      if (exposed) logger.warn(INSECURE_WARNING)
      await app.listen({ host, port })
      const address = app.server.address()
      if (address && typeof address === 'object') port = address.port
      await grpc?.listen().catch(async (error: unknown) => {
        await app.close()
        throw error
      })
      // A server whose engine cannot start must not go on taking requests it will never run.
      await engine.start().catch(async (error: unknown) => {
        await grpc?.close()
        await app.close()
        throw error
      })
      worker.start()
      sweeper.start()
      await grpc?.startHealth()
      return publicUrl()
    },
    url: publicUrl,
    grpcAddress: () => grpc?.address(),
    async close() {
      heartbeats.closeAll()
      await engine.stop()
      await grpc?.close()
      await app.close()
      await worker.stop({ drainMs })
      await sweeper.stop()
      await dispatcher.close()
      await bus.close()
      await store.close()
      await Promise.all(authentication.authenticators.map((a) => a.close?.()))
      await options.tracing?.shutdown?.()
    },
  }
}
