import { type Static, Type } from '@sinclair/typebox'
import { enumOf, jsonObject } from '../../../schema/typebox.ts'
import { A2A_TASK_STATES } from './states.ts'

/**
 * A2A 1.0 wire shapes, as ProtoJSON renders `lf.a2a.v1`: lowerCamelCase fields, enum names as
 * strings, a oneof told apart by which member is present (no `kind` field). Fields the proto
 * marks REQUIRED are required here; everything else is omitted when it holds its default.
 * Each is one TypeBox declaration: the type, and the JSON Schema requests are checked against.
 */

/** The protocol version both ends speak (`A2A-Version`, the card's interfaces). */
export const A2A_VERSION = '1.0'

/** The A2A media type (REST bodies, webhooks); requests may also be application/json. */
export const A2A_CONTENT_TYPE = 'application/a2a+json'

export const Struct = jsonObject()
export type Struct = Static<typeof Struct>

export const Strings = Type.Array(Type.String())
/** An id we accept from a client: bounded, and never empty. */
export const Id = Type.String({ minLength: 1, maxLength: 256 })
const Ref = Type.String({ maxLength: 256 })

/** Exactly one of `text`, `raw` (base64), `url`, `data` is present. */
export const A2aPart = Type.Object(
  {
    text: Type.Optional(Type.String()),
    // Standard or URL-safe alphabet, padded or not: ProtoJSON readers accept both.
    raw: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/_-]*={0,2}$' })),
    url: Type.Optional(Type.String({ format: 'uri', maxLength: 8192 })),
    data: Type.Optional(Type.Unknown()),
    mediaType: Type.Optional(Type.String({ maxLength: 255 })),
    filename: Type.Optional(Type.String({ maxLength: 1024 })),
    metadata: Type.Optional(Struct),
  },
  { oneOf: [{ required: ['text'] }, { required: ['raw'] }, { required: ['url'] }, { required: ['data'] }] },
)
export type A2aPart = Static<typeof A2aPart>

export const A2aMessage = Type.Object({
  messageId: Id,
  role: enumOf(['ROLE_USER', 'ROLE_AGENT']),
  parts: Type.Array(A2aPart),
  contextId: Type.Optional(Ref),
  taskId: Type.Optional(Ref),
  referenceTaskIds: Type.Optional(Strings),
  extensions: Type.Optional(Strings),
  metadata: Type.Optional(Struct),
})
export type A2aMessage = Static<typeof A2aMessage>

export const A2aTaskStatus = Type.Object({
  state: enumOf(A2A_TASK_STATES),
  message: Type.Optional(A2aMessage),
  timestamp: Type.Optional(Type.String()),
})
export type A2aTaskStatus = Static<typeof A2aTaskStatus>

export const A2aArtifact = Type.Object({
  artifactId: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  parts: Type.Array(A2aPart),
  metadata: Type.Optional(Struct),
  extensions: Type.Optional(Strings),
})
export type A2aArtifact = Static<typeof A2aArtifact>

export const A2aTask = Type.Object({
  id: Type.String(),
  contextId: Type.String(),
  status: A2aTaskStatus,
  artifacts: Type.Optional(Type.Array(A2aArtifact)),
  history: Type.Optional(Type.Array(A2aMessage)),
  metadata: Type.Optional(Struct),
})
export type A2aTask = Static<typeof A2aTask>

export const A2aStatusUpdate = Type.Object({
  taskId: Type.String(),
  contextId: Type.String(),
  status: A2aTaskStatus,
  metadata: Type.Optional(Struct),
})
export type A2aStatusUpdate = Static<typeof A2aStatusUpdate>

export const A2aArtifactUpdate = Type.Object({
  taskId: Type.String(),
  contextId: Type.String(),
  artifact: A2aArtifact,
  append: Type.Optional(Type.Boolean()),
  lastChunk: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Struct),
})
export type A2aArtifactUpdate = Static<typeof A2aArtifactUpdate>

export const StreamResponse = Type.Union([
  Type.Object({ task: A2aTask }),
  Type.Object({ message: A2aMessage }),
  Type.Object({ statusUpdate: A2aStatusUpdate }),
  Type.Object({ artifactUpdate: A2aArtifactUpdate }),
])
export type StreamResponse = Static<typeof StreamResponse>

export const SendMessageResponse = Type.Union([
  Type.Object({ task: A2aTask }),
  Type.Object({ message: A2aMessage }),
])
export type SendMessageResponse = Static<typeof SendMessageResponse>

export const ListTasksResponse = Type.Object({
  tasks: Type.Array(A2aTask),
  /** Always present: `""` on the last page. */
  nextPageToken: Type.String(),
  pageSize: Type.Integer(),
  totalSize: Type.Integer(),
})
export type ListTasksResponse = Static<typeof ListTasksResponse>

export const AuthenticationInfo = Type.Object({
  // An HTTP auth scheme is an RFC 9110 token: nothing that could break the header line.
  scheme: Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
  credentials: Type.Optional(Type.String({ pattern: '^[^\\r\\n]*$', maxLength: 8192 })),
})
export type AuthenticationInfo = Static<typeof AuthenticationInfo>

export const TaskPushNotificationConfig = Type.Object({
  tenant: Type.Optional(Type.String()),
  id: Type.Optional(Ref),
  taskId: Type.Optional(Ref),
  url: Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048 }),
  token: Type.Optional(Type.String({ maxLength: 4096 })),
  authentication: Type.Optional(AuthenticationInfo),
})
export type TaskPushNotificationConfig = Static<typeof TaskPushNotificationConfig>

export const ListTaskPushNotificationConfigsResponse = Type.Object({
  configs: Type.Array(TaskPushNotificationConfig),
  nextPageToken: Type.String(),
})
export type ListTaskPushNotificationConfigsResponse = Static<typeof ListTaskPushNotificationConfigsResponse>

export const AgentInterface = Type.Object({
  url: Type.String(),
  protocolBinding: enumOf(['JSONRPC', 'HTTP+JSON', 'GRPC']),
  protocolVersion: Type.String(),
  tenant: Type.Optional(Type.String()),
})
export type AgentInterface = Static<typeof AgentInterface>

export const A2aAgentSkill = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  tags: Strings,
  examples: Type.Optional(Strings),
  inputModes: Type.Optional(Strings),
  outputModes: Type.Optional(Strings),
})
export type A2aAgentSkill = Static<typeof A2aAgentSkill>

/**
 * An extension the agent supports. The proto does not mark `uri` REQUIRED, so a client reading
 * another server's card does not insist on it; ours always carries one.
 */
export const AgentExtension = Type.Object({
  uri: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
  params: Type.Optional(Struct),
})
export type AgentExtension = Static<typeof AgentExtension>

export const AgentCapabilities = Type.Object({
  streaming: Type.Optional(Type.Boolean()),
  pushNotifications: Type.Optional(Type.Boolean()),
  extensions: Type.Optional(Type.Array(AgentExtension)),
  extendedAgentCard: Type.Optional(Type.Boolean()),
})
export type AgentCapabilities = Static<typeof AgentCapabilities>

/** How a caller authenticates: one SecurityScheme (an OpenAPI-like oneof, JSON as the authenticator declares it). */
export const SecurityScheme = Struct

/** One alternative way to satisfy the card: every named scheme, each with the scopes it needs. */
export const SecurityRequirement = Type.Object({
  schemes: Type.Record(Type.String(), Type.Object({ list: Type.Optional(Strings) })),
})
export type SecurityRequirement = Static<typeof SecurityRequirement>

/** A detached JWS of the card (wire/signature.ts signs and verifies it). */
export const AgentCardSignature = Type.Object({
  /** The base64url protected header: `alg`, `typ: "JOSE"`, `kid`, and `jku` (where the key set is). */
  protected: Type.String({ minLength: 1 }),
  signature: Type.String({ minLength: 1 }),
  header: Type.Optional(Struct),
})
export type AgentCardSignature = Static<typeof AgentCardSignature>

export const A2aAgentCard = Type.Object({
  name: Type.String(),
  description: Type.String(),
  supportedInterfaces: Type.Array(AgentInterface),
  provider: Type.Optional(Type.Object({ organization: Type.String(), url: Type.String() })),
  version: Type.String(),
  documentationUrl: Type.Optional(Type.String()),
  capabilities: AgentCapabilities,
  securitySchemes: Type.Optional(Type.Record(Type.String(), SecurityScheme)),
  securityRequirements: Type.Optional(Type.Array(SecurityRequirement)),
  defaultInputModes: Strings,
  defaultOutputModes: Strings,
  skills: Type.Array(A2aAgentSkill),
  signatures: Type.Optional(Type.Array(AgentCardSignature)),
})
export type A2aAgentCard = Static<typeof A2aAgentCard>

/** One item of a stream: the StreamResponse and, for items that end an event, its sequence (SSE `id:`). */
export interface StreamItem {
  id?: number
  response: StreamResponse
}
