import { isObject } from '../../../../model/json.ts'
import type {
  A2aArtifact,
  A2aArtifactUpdate,
  A2aMessage,
  A2aPart,
  A2aStatusUpdate,
  A2aTask,
  A2aTaskStatus,
  SendMessageResponse,
  StreamResponse,
  TaskPushNotificationConfig,
} from '../shapes.ts'
import { convertArtifact, convertStatus, convertTask, messageFields } from './same-fields.ts'
import type {
  V03Artifact,
  V03Message,
  V03MessageSendParams,
  V03Part,
  V03PushConfig,
  V03SendResult,
  V03StreamEvent,
  V03Task,
  V03TaskPushConfig,
  V03TaskStatus,
} from './shapes.ts'
import { toV03State } from './states.ts'

/**
 * 1.0 wire → 0.3 wire, pure: what the 1.0 operations answer, rendered for a 0.3 client (server),
 * and a 1.0 request rendered for a 0.3 agent (client). Fields 0.3 has no place for are dropped:
 * the mediaType and filename of a text or data part.
 */

/**
 * The key a non-object data value is wrapped under: 0.3 DataPart.data must be an object, 1.0
 * allows any JSON value (our "output" artifact may be an array or a number).
 */
export const V03_WRAPPED_DATA_KEY = 'value'

export const toV03Part = (part: A2aPart): V03Part => {
  const metadata = part.metadata && { metadata: part.metadata }
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...metadata }
  if (part.raw !== undefined || part.url !== undefined) {
    const file: V03Part & { kind: 'file' } = {
      kind: 'file',
      file: part.raw !== undefined ? { bytes: part.raw } : { uri: part.url! },
      ...metadata,
    }
    if (part.mediaType) file.file.mimeType = part.mediaType
    if (part.filename) file.file.name = part.filename
    return file
  }
  const data = isObject(part.data) ? part.data : { [V03_WRAPPED_DATA_KEY]: part.data ?? null }
  return { kind: 'data', data, ...metadata }
}

export const toV03Message = (message: A2aMessage): V03Message => ({
  kind: 'message',
  messageId: message.messageId,
  role: message.role === 'ROLE_AGENT' ? 'agent' : 'user',
  parts: message.parts.map(toV03Part),
  ...messageFields(message),
})

export const toV03Status = (status: A2aTaskStatus): V03TaskStatus =>
  convertStatus(status, toV03State, toV03Message)

export const toV03Artifact = (artifact: A2aArtifact): V03Artifact => convertArtifact(artifact, toV03Part)

export const toV03Task = (task: A2aTask): V03Task => ({
  kind: 'task',
  ...convertTask(task, { status: toV03Status, artifact: toV03Artifact, message: toV03Message }),
})

export const toV03SendResult = (response: SendMessageResponse): V03SendResult =>
  'task' in response ? toV03Task(response.task) : toV03Message(response.message)

const statusUpdate = (update: A2aStatusUpdate, final: boolean): V03StreamEvent => ({
  kind: 'status-update',
  taskId: update.taskId,
  contextId: update.contextId,
  status: toV03Status(update.status),
  final,
  ...(update.metadata && { metadata: update.metadata }),
})

const artifactUpdate = (update: A2aArtifactUpdate): V03StreamEvent => ({
  kind: 'artifact-update',
  taskId: update.taskId,
  contextId: update.contextId,
  artifact: toV03Artifact(update.artifact),
  ...(update.append && { append: true }),
  ...(update.lastChunk && { lastChunk: true }),
  ...(update.metadata && { metadata: update.metadata }),
})

/** One stream item; `final` is set by the caller, who knows whether the stream ends with it. */
export const toV03StreamEvent = (response: StreamResponse, final = false): V03StreamEvent => {
  if ('task' in response) return toV03Task(response.task)
  if ('message' in response) return toV03Message(response.message)
  if ('statusUpdate' in response) return statusUpdate(response.statusUpdate, final)
  return artifactUpdate(response.artifactUpdate)
}

/** The endpoint part of a 1.0 config (the 0.3 `pushNotificationConfig`). */
export const toV03PushConfig = (config: TaskPushNotificationConfig): V03PushConfig => {
  const wire: V03PushConfig = { url: config.url }
  if (config.id) wire.id = config.id
  if (config.token) wire.token = config.token
  if (config.authentication) {
    wire.authentication = { schemes: [config.authentication.scheme] }
    if (config.authentication.credentials !== undefined)
      wire.authentication.credentials = config.authentication.credentials
  }
  return wire
}

export const toV03TaskPushConfig = (config: TaskPushNotificationConfig): V03TaskPushConfig => ({
  taskId: config.taskId ?? '',
  pushNotificationConfig: toV03PushConfig(config),
})

/**
 * A 1.0 SendMessageRequest (as the client's codec builds it) as 0.3 MessageSendParams; the
 * message is the user's. `returnImmediately` is the opposite of 0.3's `blocking`.
 */
export const toV03SendParams = (request: {
  message: A2aMessage
  configuration?: {
    acceptedOutputModes?: string[]
    returnImmediately?: boolean
    historyLength?: number
    taskPushNotificationConfig?: TaskPushNotificationConfig
  }
  metadata?: Record<string, unknown>
}): V03MessageSendParams => {
  const params: V03MessageSendParams = {
    message: { ...toV03Message(request.message), role: 'user' },
  }
  const config = request.configuration
  if (config) {
    const wire: NonNullable<V03MessageSendParams['configuration']> = {}
    if (config.acceptedOutputModes) wire.acceptedOutputModes = config.acceptedOutputModes
    if (config.returnImmediately !== undefined) wire.blocking = !config.returnImmediately
    if (config.historyLength !== undefined) wire.historyLength = config.historyLength
    if (config.taskPushNotificationConfig)
      wire.pushNotificationConfig = toV03PushConfig(config.taskPushNotificationConfig)
    params.configuration = wire
  }
  if (request.metadata) params.metadata = request.metadata
  return params
}
