import { type Static, Type } from '@sinclair/typebox'
import { enumOf, jsonObject } from '../../../../schema/typebox.ts'
// The PushNotificationConfig message is the same on both 0.3 bindings: one declaration.
import { V03PushConfig } from './shapes.ts'

/**
 * The A2A 0.3 HTTP+JSON bodies: the ProtoJSON of the 0.3 proto (package `a2a.v1`, what
 * @a2a-js/sdk 0.3.14 sends and reads). They differ from 1.0 in names and shapes, not in meaning:
 * a message's parts are `content`; a part is `{text}`, `{file: {fileWithUri|fileWithBytes,
 * mimeType}}` or `{data: {data}}` and has no metadata or filename; the cancelled state is spelled
 * `TASK_STATE_CANCELLED`; a status update says whether it is `final`; a push config is wrapped
 * (`{name, pushNotificationConfig}`) and authenticates with a list of `schemes`. Each shape is one
 * TypeBox declaration, shared by the server (which checks requests against it) and the client.
 */

const Struct = jsonObject()
const Strings = Type.Array(Type.String())
const Id = Type.String({ minLength: 1, maxLength: 256 })
const Ref = Type.String({ maxLength: 256 })

/** The 0.3 TaskState enum, in number order (ProtoJSON readers take the numbers too). */
export const V03_REST_TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELLED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const
export type V03RestTaskState = (typeof V03_REST_TASK_STATES)[number]

/** The 0.3 Role enum, by name or number. */
export const V03_REST_ROLES = ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] as const

export const V03RestFilePart = Type.Object(
  {
    fileWithUri: Type.Optional(Type.String({ format: 'uri', maxLength: 8192 })),
    // bytes in ProtoJSON: base64, standard or URL-safe, padded or not.
    fileWithBytes: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/_-]*={0,2}$' })),
    mimeType: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { oneOf: [{ required: ['fileWithUri'] }, { required: ['fileWithBytes'] }] },
)
export type V03RestFilePart = Static<typeof V03RestFilePart>

/** Exactly one of `text`, `file`, `data`; a DataPart's `data` is a Struct (a JSON object). */
export const V03RestPart = Type.Object(
  {
    text: Type.Optional(Type.String()),
    file: Type.Optional(V03RestFilePart),
    data: Type.Optional(Type.Object({ data: Struct })),
  },
  { oneOf: [{ required: ['text'] }, { required: ['file'] }, { required: ['data'] }] },
)
export type V03RestPart = Static<typeof V03RestPart>

export const V03RestMessage = Type.Object({
  messageId: Id,
  contextId: Type.Optional(Ref),
  taskId: Type.Optional(Ref),
  role: enumOf([...V03_REST_ROLES, 0, 1, 2]),
  content: Type.Array(V03RestPart),
  metadata: Type.Optional(Struct),
  extensions: Type.Optional(Strings),
})
export type V03RestMessage = Static<typeof V03RestMessage>

export const V03RestTaskStatus = Type.Object({
  state: enumOf(V03_REST_TASK_STATES),
  /** The proto field `update`, whose json_name is `message`. */
  message: Type.Optional(V03RestMessage),
  timestamp: Type.Optional(Type.String()),
})
export type V03RestTaskStatus = Static<typeof V03RestTaskStatus>

export const V03RestArtifact = Type.Object({
  artifactId: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  parts: Type.Array(V03RestPart),
  metadata: Type.Optional(Struct),
  extensions: Type.Optional(Strings),
})
export type V03RestArtifact = Static<typeof V03RestArtifact>

export const V03RestTask = Type.Object({
  id: Type.String(),
  contextId: Type.String(),
  status: V03RestTaskStatus,
  artifacts: Type.Optional(Type.Array(V03RestArtifact)),
  history: Type.Optional(Type.Array(V03RestMessage)),
  metadata: Type.Optional(Struct),
})
export type V03RestTask = Static<typeof V03RestTask>

export const V03RestStatusUpdate = Type.Object({
  taskId: Type.String(),
  contextId: Type.String(),
  status: V03RestTaskStatus,
  /** True on the update after which the stream ends (a terminal state, or input required). */
  final: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Struct),
})
export type V03RestStatusUpdate = Static<typeof V03RestStatusUpdate>

export const V03RestArtifactUpdate = Type.Object({
  taskId: Type.String(),
  contextId: Type.String(),
  artifact: V03RestArtifact,
  append: Type.Optional(Type.Boolean()),
  lastChunk: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Struct),
})
export type V03RestArtifactUpdate = Static<typeof V03RestArtifactUpdate>

/** One SSE event of `message:stream` and `tasks/{id}:subscribe`: the oneof, no wrapper. */
export const V03RestStreamResponse = Type.Union([
  Type.Object({ task: V03RestTask }),
  Type.Object({ message: V03RestMessage }),
  Type.Object({ statusUpdate: V03RestStatusUpdate }),
  Type.Object({ artifactUpdate: V03RestArtifactUpdate }),
])
export type V03RestStreamResponse = Static<typeof V03RestStreamResponse>

export const V03RestSendMessageResponse = Type.Union([
  Type.Object({ task: V03RestTask }),
  Type.Object({ message: V03RestMessage }),
])
export type V03RestSendMessageResponse = Static<typeof V03RestSendMessageResponse>

/** `name` is the resource name `tasks/{taskId}/pushNotificationConfigs/{configId}`. */
export const V03RestTaskPushNotificationConfig = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 600 })),
  pushNotificationConfig: V03PushConfig,
})
export type V03RestTaskPushNotificationConfig = Static<typeof V03RestTaskPushNotificationConfig>

/**
 * The body of `POST /v1/tasks/{id}/pushNotificationConfigs` as the 0.3 spec (§7.5) and sdk
 * 0.3.14's server read it: the CreateTaskPushNotificationConfigRequest, config under `config`.
 * (The proto's HTTP rule and sdk 0.3.14's client send the bare TaskPushNotificationConfig; the
 * server takes both.)
 */
export const V03RestCreatePushConfigRequest = Type.Object({
  parent: Type.Optional(Type.String({ maxLength: 600 })),
  configId: Type.Optional(Ref),
  config: V03RestTaskPushNotificationConfig,
})
export type V03RestCreatePushConfigRequest = Static<typeof V03RestCreatePushConfigRequest>

export const V03RestListPushConfigsResponse = Type.Object({
  configs: Type.Array(V03RestTaskPushNotificationConfig),
  nextPageToken: Type.Optional(Type.String()),
})
export type V03RestListPushConfigsResponse = Static<typeof V03RestListPushConfigsResponse>

export const V03RestSendMessageConfiguration = Type.Object({
  acceptedOutputModes: Type.Optional(Strings),
  pushNotification: Type.Optional(V03PushConfig),
  /** 0 (the proto default) means no limit. */
  historyLength: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  /** false (the proto default) answers at once; true waits for a terminal or interrupted state. */
  blocking: Type.Optional(Type.Boolean()),
})
export type V03RestSendMessageConfiguration = Static<typeof V03RestSendMessageConfiguration>

export const V03RestSendMessageRequest = Type.Object({
  message: Type.Object({ ...V03RestMessage.properties, content: Type.Array(V03RestPart, { minItems: 1 }) }),
  configuration: Type.Optional(V03RestSendMessageConfiguration),
  metadata: Type.Optional(Struct),
})
export type V03RestSendMessageRequest = Static<typeof V03RestSendMessageRequest>

/** An AgentInterface of the 0.3 card: `transport` rather than `protocolBinding`. */
export const V03RestAgentInterface = Type.Object({ url: Type.String(), transport: Type.String() })
export type V03RestAgentInterface = Static<typeof V03RestAgentInterface>

/**
 * The 0.3 AgentCard as `GET /v1/card` answers it. Its security schemes and requirements are in
 * the proto's shape, which 1.0 kept (the oneof wrappers; `{schemes: {name: {list}}}`), under the
 * 0.3 names (`security`).
 */
export const V03RestAgentCard = Type.Object({
  protocolVersion: Type.String(),
  name: Type.String(),
  description: Type.String(),
  url: Type.String(),
  preferredTransport: Type.Optional(Type.String()),
  additionalInterfaces: Type.Optional(Type.Array(V03RestAgentInterface)),
  provider: Type.Optional(Type.Object({ url: Type.String(), organization: Type.String() })),
  version: Type.String(),
  documentationUrl: Type.Optional(Type.String()),
  capabilities: Type.Object({
    streaming: Type.Optional(Type.Boolean()),
    pushNotifications: Type.Optional(Type.Boolean()),
    extensions: Type.Optional(Type.Array(Struct)),
  }),
  securitySchemes: Type.Optional(Type.Record(Type.String(), Struct)),
  security: Type.Optional(Type.Array(Struct)),
  defaultInputModes: Strings,
  defaultOutputModes: Strings,
  skills: Type.Array(Struct),
  supportsAuthenticatedExtendedCard: Type.Optional(Type.Boolean()),
  signatures: Type.Optional(Type.Array(Struct)),
})
export type V03RestAgentCard = Static<typeof V03RestAgentCard>
