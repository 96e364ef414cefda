/**
 * A2A 1.0 wire shapes, as ProtoJSON renders `lf.a2a.v1`: lowerCamelCase fields, enum names as
 * strings, a oneof told apart by which member is present (no `kind` field). Fields the proto
 * marks REQUIRED are required here; everything else is omitted when it holds its default.
 */
/** The A2A media type (REST bodies, webhooks); requests may also be application/json. */
export const A2A_CONTENT_TYPE = 'application/a2a+json'

export type A2aTaskState =
  | 'TASK_STATE_UNSPECIFIED'
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED'

/** The proto enum numbers, in order: ProtoJSON readers accept them in place of the names. */
export const A2A_TASK_STATES: readonly A2aTaskState[] = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
]

export type A2aRole = 'ROLE_USER' | 'ROLE_AGENT'

export type Struct = Record<string, unknown>

/** Exactly one of `text`, `raw` (base64), `url`, `data` is present. */
export interface A2aPart {
  text?: string
  raw?: string
  url?: string
  data?: unknown
  mediaType?: string
  filename?: string
  metadata?: Struct
}

export interface A2aMessage {
  messageId: string
  role: A2aRole
  parts: A2aPart[]
  contextId?: string
  taskId?: string
  referenceTaskIds?: string[]
  extensions?: string[]
  metadata?: Struct
}

export interface A2aTaskStatus {
  state: A2aTaskState
  message?: A2aMessage
  timestamp?: string
}

export interface A2aArtifact {
  artifactId: string
  name?: string
  description?: string
  parts: A2aPart[]
  metadata?: Struct
  extensions?: string[]
}

export interface A2aTask {
  id: string
  contextId: string
  status: A2aTaskStatus
  artifacts?: A2aArtifact[]
  history?: A2aMessage[]
  metadata?: Struct
}

export interface A2aStatusUpdate {
  taskId: string
  contextId: string
  status: A2aTaskStatus
  metadata?: Struct
}

export interface A2aArtifactUpdate {
  taskId: string
  contextId: string
  artifact: A2aArtifact
  append?: boolean
  lastChunk?: boolean
  metadata?: Struct
}

export type StreamResponse =
  | { task: A2aTask }
  | { message: A2aMessage }
  | { statusUpdate: A2aStatusUpdate }
  | { artifactUpdate: A2aArtifactUpdate }

export type SendMessageResponse = { task: A2aTask } | { message: A2aMessage }

export interface ListTasksResponse {
  tasks: A2aTask[]
  /** Always present: `""` on the last page. */
  nextPageToken: string
  pageSize: number
  totalSize: number
}

export interface AuthenticationInfo {
  scheme: string
  credentials?: string
}

export interface TaskPushNotificationConfig {
  tenant?: string
  id?: string
  taskId?: string
  url: string
  token?: string
  authentication?: AuthenticationInfo
}

export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[]
  nextPageToken: string
}

export interface AgentInterface {
  url: string
  protocolBinding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'
  protocolVersion: string
  tenant?: string
}

export interface A2aAgentSkill {
  id: string
  name: string
  description: string
  tags: string[]
  examples?: string[]
  inputModes?: string[]
  outputModes?: string[]
}

export interface A2aAgentCard {
  name: string
  description: string
  supportedInterfaces: AgentInterface[]
  provider?: { organization: string; url: string }
  version: string
  documentationUrl?: string
  capabilities: { streaming?: boolean; pushNotifications?: boolean; extendedAgentCard?: boolean }
  defaultInputModes: string[]
  defaultOutputModes: string[]
  skills: A2aAgentSkill[]
}

/** One item of a stream: the StreamResponse and, for items that end an event, its sequence (SSE `id:`). */
export interface StreamItem {
  id?: number
  response: StreamResponse
}
