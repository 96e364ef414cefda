import { SwitchboardError } from '../../model/errors.ts'
import { compileSchema } from '../../schema/json-schema.ts'
import {
  A2A_TASK_STATES,
  type A2aPart,
  type A2aTaskState,
  type Struct,
  type TaskPushNotificationConfig,
} from './wire.ts'

/**
 * The A2A request messages both bindings receive, checked once against JSON Schemas compiled at
 * start-up. A violation is INVALID_REQUEST with one field violation per problem, which the error
 * table turns into InvalidParams (-32602 / 400) with a google.rpc.BadRequest. Unknown fields are
 * ignored, as ProtoJSON asks; `tenant` is accepted and ignored because our interfaces declare none.
 */
export interface InboundMessage {
  messageId: string
  role: 'ROLE_USER' | 1
  parts: A2aPart[]
  contextId?: string
  taskId?: string
  referenceTaskIds?: string[]
  extensions?: string[]
  metadata?: Struct
}

export interface SendMessageRequest {
  message: InboundMessage
  configuration?: {
    acceptedOutputModes?: string[]
    taskPushNotificationConfig?: TaskPushNotificationConfig
    historyLength?: number
    returnImmediately?: boolean
  }
  metadata?: Struct
}

export interface GetTaskRequest {
  id: string
  historyLength?: number
}

export interface ListTasksRequest {
  contextId?: string
  status?: A2aTaskState | number
  pageSize?: number
  pageToken?: string
  historyLength?: number
  statusTimestampAfter?: string
  includeArtifacts?: boolean
}

export interface TaskIdRequest {
  id: string
}

export interface PushConfigRequest {
  taskId: string
  id: string
}

const STRING = { type: 'string' }
const ID = { type: 'string', minLength: 1, maxLength: 256 }
const STRUCT = { type: 'object' }
const STRINGS = { type: 'array', items: STRING }
const HISTORY_LENGTH = { type: 'integer', minimum: 0, maximum: 2_147_483_647 }

const PART = {
  type: 'object',
  properties: {
    text: STRING,
    // Standard or URL-safe alphabet, padded or not: ProtoJSON readers accept both.
    raw: { type: 'string', pattern: '^[A-Za-z0-9+/_-]*={0,2}$' },
    url: { type: 'string', format: 'uri', maxLength: 8192 },
    data: {},
    mediaType: { type: 'string', maxLength: 255 },
    filename: { type: 'string', maxLength: 1024 },
    metadata: STRUCT,
  },
  oneOf: [{ required: ['text'] }, { required: ['raw'] }, { required: ['url'] }, { required: ['data'] }],
}

const MESSAGE = {
  type: 'object',
  properties: {
    messageId: ID,
    role: { enum: ['ROLE_USER', 1] },
    parts: { type: 'array', minItems: 1, items: PART },
    contextId: { type: 'string', maxLength: 256 },
    taskId: { type: 'string', maxLength: 256 },
    referenceTaskIds: STRINGS,
    extensions: STRINGS,
    metadata: STRUCT,
  },
  required: ['messageId', 'role', 'parts'],
}

const PUSH_CONFIG = {
  type: 'object',
  properties: {
    tenant: STRING,
    id: { type: 'string', maxLength: 256 },
    taskId: { type: 'string', maxLength: 256 },
    url: { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048 },
    token: { type: 'string', maxLength: 4096 },
    authentication: {
      type: 'object',
      properties: {
        // An HTTP auth scheme is an RFC 9110 token: nothing that could break the header line.
        scheme: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
        credentials: { type: 'string', pattern: '^[^\\r\\n]*$', maxLength: 8192 },
      },
      required: ['scheme'],
    },
  },
  required: ['url'],
}

const SEND_MESSAGE = {
  type: 'object',
  properties: {
    tenant: STRING,
    message: MESSAGE,
    configuration: {
      type: 'object',
      properties: {
        acceptedOutputModes: STRINGS,
        taskPushNotificationConfig: PUSH_CONFIG,
        historyLength: HISTORY_LENGTH,
        returnImmediately: { type: 'boolean' },
      },
    },
    metadata: STRUCT,
  },
  required: ['message'],
}

const GET_TASK = {
  type: 'object',
  properties: { tenant: STRING, id: ID, historyLength: HISTORY_LENGTH },
  required: ['id'],
}

const LIST_TASKS = {
  type: 'object',
  properties: {
    tenant: STRING,
    contextId: STRING,
    status: { enum: [...A2A_TASK_STATES, ...A2A_TASK_STATES.map((_, i) => i)] },
    pageSize: { type: 'integer', minimum: 1, maximum: 100 },
    pageToken: STRING,
    historyLength: HISTORY_LENGTH,
    statusTimestampAfter: { type: 'string', format: 'date-time' },
    includeArtifacts: { type: 'boolean' },
  },
}

const TASK_ID = { type: 'object', properties: { tenant: STRING, id: ID, metadata: STRUCT }, required: ['id'] }

const CREATE_PUSH_CONFIG = {
  ...PUSH_CONFIG,
  properties: { ...PUSH_CONFIG.properties, taskId: ID },
  required: ['taskId', 'url'],
}

const PUSH_CONFIG_ID = {
  type: 'object',
  properties: { tenant: STRING, taskId: ID, id: ID },
  required: ['taskId', 'id'],
}

const LIST_PUSH_CONFIGS = {
  type: 'object',
  properties: { tenant: STRING, taskId: ID, pageSize: { type: 'integer', minimum: 0 }, pageToken: STRING },
  required: ['taskId'],
}

const TENANT_ONLY = { type: 'object', properties: { tenant: STRING } }

/** Compiles a request schema; the check throws INVALID_REQUEST naming every violated field. */
const requestCheck = <T>(schema: object, what: string): ((value: unknown) => T) => {
  const validate = compileSchema(schema)
  return (value) => {
    const violations = validate(value ?? {}, '')
    if (violations.length > 0) {
      throw new SwitchboardError(
        'INVALID_REQUEST',
        `invalid ${what}: ${violations.map((v) => v.description).join('; ')}`,
        { violations },
      )
    }
    return (value ?? {}) as T
  }
}

export const checkSendMessage = requestCheck<SendMessageRequest>(SEND_MESSAGE, 'SendMessageRequest')
export const checkGetTask = requestCheck<GetTaskRequest>(GET_TASK, 'GetTaskRequest')
export const checkListTasks = requestCheck<ListTasksRequest>(LIST_TASKS, 'ListTasksRequest')
export const checkCancelTask = requestCheck<TaskIdRequest>(TASK_ID, 'CancelTaskRequest')
export const checkSubscribe = requestCheck<TaskIdRequest>(TASK_ID, 'SubscribeToTaskRequest')
export const checkCreatePushConfig = requestCheck<TaskPushNotificationConfig & { taskId: string }>(
  CREATE_PUSH_CONFIG,
  'TaskPushNotificationConfig',
)
export const checkPushConfigId = requestCheck<PushConfigRequest>(
  PUSH_CONFIG_ID,
  'push notification config request',
)
export const checkListPushConfigs = requestCheck<{ taskId: string }>(
  LIST_PUSH_CONFIGS,
  'ListTaskPushNotificationConfigsRequest',
)
export const checkExtendedCard = requestCheck<object>(TENANT_ONLY, 'GetExtendedAgentCardRequest')

/** ProtoJSON treats an empty string as an absent field. */
export const present = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value
