import type { Engine } from '../engine/engine.ts'
import type { EngineLogger } from '../engine/logger.ts'
import type { HostedAgent } from '../engine/registry.ts'
import type { JsonObject } from '../model/events.ts'
import type { Heartbeats } from './sse.ts'

/** What every route plugin of a server shares. */
export interface ServerContext {
  engine: Engine
  /**
   * Counts an error a handler answered itself rather than throwing (A2A JSON-RPC answers errors
   * with HTTP 200): the metrics' handler errors, by Switchboard code or else A2A error kind.
   */
  countHandlerError?: (code: string) => void
  heartbeats: Heartbeats
  /** How long a stream may stay backpressured before the client is dropped. */
  stallMs: number
  /** The absolute URL clients reach this server at (known once it listens). */
  publicUrl(): string
  /** `host:port` of the gRPC binding, once it listens; undefined when gRPC is off. */
  grpcAddress?(): string | undefined
  /** When Switchboard started serving; the cards' Last-Modified. */
  startedAt: Date
  logger: EngineLogger
  /** Accept A2A requests without an A2A-Version header as 1.0 (off by default: the spec says 0.3). */
  a2aAssumeVersion: boolean
  /** Serve A2A 0.3 beside 1.0 on the same interfaces (on by default): a request without A2A-Version is 0.3. */
  a2aV03: boolean
  /** A2A messageIds deduplicate (on by default; off for peers that reuse them). */
  a2aMessageIdDedupe: boolean
  /** Refuses (URL_NOT_ALLOWED) a URL the outbound policy forbids: push endpoints at registration. */
  checkOutboundUrl(url: string): Promise<void>
  /** What the cards declare about authentication, from the configured authenticators. */
  cardSecurity: CardSecurity
  /** The detached JWS signatures of a card (JCS form, without `signatures`); absent when card signing is off. */
  signCard?: (card: object) => Promise<{ protected: string; signature: string }[]>
}

/** How callers authenticate, as a card declares it. */
export interface CardSecurity {
  /** Scheme name → SecurityScheme (A2A 1.0 JSON), one per authenticator; empty when authentication is off. */
  schemes: Readonly<Record<string, JsonObject>>
  /** Callers without credentials are served too (authenticators configured with allowAnonymous). */
  anonymous: boolean
}

/** One agent served under one base path: `/agents/{slug}`, and `''` for the default agent at the root. */
export interface AgentMount {
  agent: HostedAgent
  prefix: string
  /** The absolute base URL of this mount, without a trailing slash. */
  baseUrl(): string
}
