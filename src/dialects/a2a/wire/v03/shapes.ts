import { type Static, type TObject, Type } from '@sinclair/typebox'
import { enumOf, jsonObject } from '../../../../schema/typebox.ts'

/**
 * A2A 0.3 wire shapes, as its JSON Schema (spec/v0.3.0/a2a.json) defines them: every Part, Message,
 * Task and event carries a `kind` that tells it apart, states and roles are lower-case words, and
 * push configs nest the endpoint under `pushNotificationConfig`. Shared by the server (which checks
 * 0.3 requests against them before converting) and the client (which reads 0.3 answers).
 * Unknown fields are allowed, as the 0.3 schema allows them.
 */

/** The card's `protocolVersion` for 0.3, and what a 0.3 AgentInterface entry carries. */
export const A2A_V03_PROTOCOL_VERSION = '0.3.0'

/** The 0.3 extension header (1.0 renamed it A2A-Extensions). */
export const V03_EXTENSIONS_HEADER = 'X-A2A-Extensions'

/** The header a 0.3 webhook carries the config's token in. */
export const V03_NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token'

export const V03_TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
] as const
export type V03TaskState = (typeof V03_TASK_STATES)[number]

const Struct = jsonObject()
const Strings = Type.Array(Type.String())
/** An id we accept from a client: bounded, and never empty. */
const Id = Type.String({ minLength: 1, maxLength: 256 })
const Ref = Type.String({ maxLength: 256 })
const HistoryLength = Type.Integer({ minimum: 0, maximum: 2_147_483_647 })

export const V03TextPart = Type.Object({
  kind: Type.Literal('text'),
  text: Type.String(),
  metadata: Type.Optional(Struct),
})
export type V03TextPart = Static<typeof V03TextPart>

/** Exactly one of `bytes` (base64) and `uri`. */
export const V03File = Type.Object(
  {
    bytes: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/_-]*={0,2}$' })),
    uri: Type.Optional(Type.String({ format: 'uri', maxLength: 8192 })),
    mimeType: Type.Optional(Type.String({ maxLength: 255 })),
    name: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { oneOf: [{ required: ['bytes'] }, { required: ['uri'] }] },
)
export type V03File = Static<typeof V03File>

export const V03FilePart = Type.Object({
  kind: Type.Literal('file'),
  file: V03File,
  metadata: Type.Optional(Struct),
})
export type V03FilePart = Static<typeof V03FilePart>

/** 0.3 data is always an object (1.0 allows any JSON value). */
export const V03DataPart = Type.Object({
  kind: Type.Literal('data'),
  data: Struct,
  metadata: Type.Optional(Struct),
})
export type V03DataPart = Static<typeof V03DataPart>

export type V03Part = V03TextPart | V03FilePart | V03DataPart

/**
 * A tagged union checked by its tag: `if kind is X then the X shape`, so a bad part is reported
 * against the shape its `kind` names (an anyOf would list every alternative's complaints).
 */
const byKind = <T>(members: Record<string, TObject>) =>
  Type.Unsafe<T>({
    type: 'object',
    required: ['kind'],
    properties: { kind: { enum: Object.keys(members) } },
    allOf: Object.entries(members).map(([kind, schema]) => ({
      if: { properties: { kind: { const: kind } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable
      then: schema,
    })),
  })

export const V03Part = byKind<V03Part>({ text: V03TextPart, file: V03FilePart, data: V03DataPart })

export const V03Message = Type.Object({
  kind: Type.Literal('message'),
  messageId: Id,
  role: enumOf(['user', 'agent']),
  parts: Type.Array(V03Part),
  contextId: Type.Optional(Ref),
  taskId: Type.Optional(Ref),
  referenceTaskIds: Type.Optional(Strings),
  extensions: Type.Optional(Strings),
  metadata: Type.Optional(Struct),
})
export type V03Message = Static<typeof V03Message>

export const V03TaskStatus = Type.Object({
  state: enumOf(V03_TASK_STATES),
  message: Type.Optional(V03Message),
  timestamp: Type.Optional(Type.String()),
})
export type V03TaskStatus = Static<typeof V03TaskStatus>

export const V03Artifact = Type.Object({
  artifactId: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  parts: Type.Array(V03Part),
  metadata: Type.Optional(Struct),
  extensions: Type.Optional(Strings),
})
export type V03Artifact = Static<typeof V03Artifact>

export const V03Task = Type.Object({
  kind: Type.Literal('task'),
  id: Type.String(),
  contextId: Type.String(),
  status: V03TaskStatus,
  artifacts: Type.Optional(Type.Array(V03Artifact)),
  history: Type.Optional(Type.Array(V03Message)),
  metadata: Type.Optional(Struct),
})
export type V03Task = Static<typeof V03Task>

/** `final` marks the update that ends the stream. */
export const V03StatusUpdate = Type.Object({
  kind: Type.Literal('status-update'),
  taskId: Type.String(),
  contextId: Type.String(),
  status: V03TaskStatus,
  final: Type.Boolean(),
  metadata: Type.Optional(Struct),
})
export type V03StatusUpdate = Static<typeof V03StatusUpdate>

export const V03ArtifactUpdate = Type.Object({
  kind: Type.Literal('artifact-update'),
  taskId: Type.String(),
  contextId: Type.String(),
  artifact: V03Artifact,
  append: Type.Optional(Type.Boolean()),
  lastChunk: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Struct),
})
export type V03ArtifactUpdate = Static<typeof V03ArtifactUpdate>

/** What message/send answers. */
export type V03SendResult = V03Task | V03Message
export const V03SendResult = byKind<V03SendResult>({ task: V03Task, message: V03Message })

/** One message/stream or tasks/resubscribe event. */
export type V03StreamEvent = V03Task | V03Message | V03StatusUpdate | V03ArtifactUpdate
export const V03StreamEvent = byKind<V03StreamEvent>({
  task: V03Task,
  message: V03Message,
  'status-update': V03StatusUpdate,
  'artifact-update': V03ArtifactUpdate,
})

/** 0.3 names the schemes a receiver accepts; we send the first (`Authorization: <scheme> <credentials>`). */
export const V03AuthenticationInfo = Type.Object({
  schemes: Type.Array(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
  credentials: Type.Optional(Type.String({ pattern: '^[^\\r\\n]*$', maxLength: 8192 })),
})
export type V03AuthenticationInfo = Static<typeof V03AuthenticationInfo>

export const V03PushConfig = Type.Object({
  id: Type.Optional(Ref),
  url: Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048 }),
  token: Type.Optional(Type.String({ maxLength: 4096 })),
  authentication: Type.Optional(V03AuthenticationInfo),
})
export type V03PushConfig = Static<typeof V03PushConfig>

export const V03TaskPushConfig = Type.Object({
  taskId: Id,
  pushNotificationConfig: V03PushConfig,
})
export type V03TaskPushConfig = Static<typeof V03TaskPushConfig>

/** A client's message: always from the user. */
export const V03InboundMessage = Type.Object({
  ...V03Message.properties,
  role: Type.Literal('user'),
  parts: Type.Array(V03Part, { minItems: 1 }),
})

export const V03MessageSendParams = Type.Object({
  message: V03InboundMessage,
  configuration: Type.Optional(
    Type.Object({
      acceptedOutputModes: Type.Optional(Strings),
      blocking: Type.Optional(Type.Boolean()),
      historyLength: Type.Optional(HistoryLength),
      pushNotificationConfig: Type.Optional(V03PushConfig),
    }),
  ),
  metadata: Type.Optional(Struct),
})
export type V03MessageSendParams = Static<typeof V03MessageSendParams>

export const V03TaskQueryParams = Type.Object({
  id: Id,
  historyLength: Type.Optional(HistoryLength),
  metadata: Type.Optional(Struct),
})
export type V03TaskQueryParams = Static<typeof V03TaskQueryParams>

/** tasks/cancel, tasks/resubscribe, and tasks/pushNotificationConfig/list. */
export const V03TaskIdParams = Type.Object({ id: Id, metadata: Type.Optional(Struct) })
export type V03TaskIdParams = Static<typeof V03TaskIdParams>

/** tasks/pushNotificationConfig/get: without a config id, the task's first config. */
export const V03GetPushConfigParams = Type.Object({
  id: Id,
  pushNotificationConfigId: Type.Optional(Id),
  metadata: Type.Optional(Struct),
})
export type V03GetPushConfigParams = Static<typeof V03GetPushConfigParams>

export const V03DeletePushConfigParams = Type.Object({
  id: Id,
  pushNotificationConfigId: Id,
  metadata: Type.Optional(Struct),
})
export type V03DeletePushConfigParams = Static<typeof V03DeletePushConfigParams>

/** The 0.3 JSON-RPC error object: `data` is free-form (ours: an object, never 1.0's details array). */
export interface V03JsonRpcError {
  code: number
  message: string
  data?: Record<string, unknown>
}
