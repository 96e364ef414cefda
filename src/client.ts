/**
 * `switchboard/client`: talk to any agent that speaks A2A 1.0 (JSON-RPC or HTTP+JSON) or the
 * Clawpedia task protocol, through one task API.
 *
 *   const agent = await connect('https://agents.example.com/agents/report-builder')
 *   const task = await agent.send({ subject: 'Q3' })
 *   for await (const update of task.events()) …
 */

export { Agent, type InterfaceInfo, type SendOptions } from './client/agent.ts'
export type { A2aCard, A2aInterface, ClawpediaCard, Discovery, FoundCard } from './client/card.ts'
export { CardCache, type CardCacheOptions, type CardSource, defaultCardCache } from './client/card-cache.ts'
export type { CardTrust } from './client/card-trust.ts'
export { type ConnectOptions, connect } from './client/connect.ts'
export {
  type ClientCredentials,
  type CredentialFunction,
  type CredentialRequest,
  credentials,
  type OAuth2ClientCredentials,
} from './client/credentials.ts'
export { type DownloadOptions, type DownloadResult, downloadArtifact } from './client/download.ts'
export {
  CLIENT_ERROR_CODES,
  ClientError,
  type ClientErrorCode,
  isClientError,
  OutputSchemaError,
} from './client/errors.ts'
export type { HeartbeatOptions, PollOptions, ReconnectOptions } from './client/follow.ts'
export type { SendInput } from './client/payload.ts'
export { type EventsOptions, type FollowMode, TaskHandle } from './client/task-handle.ts'
export type { GrpcSettings } from './client/transports/a2a-grpc.ts'
export type {
  ArtifactChunk,
  CallOptions,
  InterfaceKind,
  OutgoingMessage,
  RemoteArtifact,
  RemoteMessage,
  RemoteReply,
  RemoteTask,
  TaskUpdate,
} from './client/types.ts'
export {
  createWebhookReceiver,
  type IncomingDelivery,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookResult,
} from './client/webhooks.ts'
export { data, file, text } from './model/parts.ts'
export type { TaskState } from './model/states.ts'
