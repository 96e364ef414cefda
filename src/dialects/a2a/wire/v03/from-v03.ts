import { SwitchboardError } from '../../../../model/errors.ts'
import type {
  A2aArtifact,
  A2aMessage,
  A2aPart,
  A2aTask,
  A2aTaskStatus,
  SendMessageResponse,
  StreamResponse,
  TaskPushNotificationConfig,
} from '../shapes.ts'
import { convertArtifact, convertStatus, convertTask, messageFields } from './same-fields.ts'
import type {
  V03Artifact,
  V03DeletePushConfigParams,
  V03GetPushConfigParams,
  V03Message,
  V03MessageSendParams,
  V03Part,
  V03PushConfig,
  V03SendResult,
  V03StreamEvent,
  V03Task,
  V03TaskIdParams,
  V03TaskPushConfig,
  V03TaskQueryParams,
  V03TaskStatus,
} from './shapes.ts'
import { fromV03State } from './states.ts'

/**
 * 0.3 wire → 1.0 wire, pure: a 0.3 request (already checked against the 0.3 shapes) as the 1.0
 * ProtoJSON request the 1.0 operations take (server), and a 0.3 answer as the 1.0 one the
 * client's codec decodes (client).
 */

export const fromV03Part = (part: V03Part): A2aPart => {
  const wire: A2aPart = {}
  switch (part.kind) {
    case 'text':
      wire.text = part.text
      break
    case 'data':
      wire.data = part.data
      break
    case 'file':
      if (part.file.bytes !== undefined) wire.raw = part.file.bytes
      else wire.url = part.file.uri!
      if (part.file.mimeType) wire.mediaType = part.file.mimeType
      if (part.file.name) wire.filename = part.file.name
      break
  }
  if (part.metadata) wire.metadata = part.metadata
  return wire
}

export const fromV03Message = (message: Omit<V03Message, 'kind'>): A2aMessage => ({
  messageId: message.messageId,
  role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
  parts: message.parts.map(fromV03Part),
  ...messageFields(message),
})

export const fromV03Status = (status: V03TaskStatus): A2aTaskStatus =>
  convertStatus(status, fromV03State, fromV03Message)

export const fromV03Artifact = (artifact: V03Artifact): A2aArtifact => convertArtifact(artifact, fromV03Part)

export const fromV03Task = (task: V03Task): A2aTask =>
  convertTask(task, { status: fromV03Status, artifact: fromV03Artifact, message: fromV03Message })

export const fromV03SendResult = (result: V03SendResult): SendMessageResponse =>
  result.kind === 'task' ? { task: fromV03Task(result) } : { message: fromV03Message(result) }

/** A stream event; `final` has no 1.0 counterpart (the stream's end says it). */
export const fromV03StreamEvent = (event: V03StreamEvent): StreamResponse => {
  switch (event.kind) {
    case 'task':
      return { task: fromV03Task(event) }
    case 'message':
      return { message: fromV03Message(event) }
    case 'status-update':
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: fromV03Status(event.status),
          ...(event.metadata && { metadata: event.metadata }),
        },
      }
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: fromV03Artifact(event.artifact),
          ...(event.append && { append: true }),
          ...(event.lastChunk && { lastChunk: true }),
          ...(event.metadata && { metadata: event.metadata }),
        },
      }
  }
}

/**
 * A 0.3 endpoint (the same message on both bindings) as a flat 1.0 config. 1.0 takes one scheme:
 * the first of 0.3's `schemes` (the one we send). Credentials with no scheme to send them under
 * are refused rather than dropped; `at` is where the config sits in the request, for the error.
 */
export const fromV03PushConfig = (
  config: V03PushConfig,
  taskId?: string,
  at = '/pushNotificationConfig',
): TaskPushNotificationConfig => {
  const wire: TaskPushNotificationConfig = { url: config.url }
  if (taskId !== undefined) wire.taskId = taskId
  if (config.id) wire.id = config.id
  if (config.token) wire.token = config.token
  const auth = config.authentication
  const scheme = auth?.schemes[0]
  if (scheme !== undefined) {
    wire.authentication = { scheme }
    if (auth!.credentials !== undefined) wire.authentication.credentials = auth!.credentials
  } else if (auth?.credentials !== undefined) {
    const field = `${at}/authentication/schemes`
    throw new SwitchboardError(
      'INVALID_REQUEST',
      `${field} is empty: credentials need a scheme to be sent under (Authorization: <scheme> <credentials>)`,
      { violations: [{ field, description: `${field} must name at least one scheme` }] },
    )
  }
  return wire
}

export const fromV03TaskPushConfig = (config: V03TaskPushConfig): TaskPushNotificationConfig =>
  fromV03PushConfig(config.pushNotificationConfig, config.taskId)

/** MessageSendParams → SendMessageRequest: `blocking: false` is `returnImmediately`. */
export const fromV03SendParams = (params: V03MessageSendParams): Record<string, unknown> => {
  const request: Record<string, unknown> = { message: fromV03Message(params.message) }
  const config = params.configuration
  if (config) {
    const wire: Record<string, unknown> = {}
    if (config.acceptedOutputModes) wire.acceptedOutputModes = config.acceptedOutputModes
    if (config.blocking === false) wire.returnImmediately = true
    if (config.historyLength !== undefined) wire.historyLength = config.historyLength
    if (config.pushNotificationConfig)
      wire.taskPushNotificationConfig = fromV03PushConfig(config.pushNotificationConfig)
    request.configuration = wire
  }
  if (params.metadata) request.metadata = params.metadata
  return request
}

export const fromV03TaskQuery = (params: V03TaskQueryParams): Record<string, unknown> => ({
  id: params.id,
  ...(params.historyLength !== undefined && { historyLength: params.historyLength }),
})

export const fromV03TaskId = (params: V03TaskIdParams): Record<string, unknown> => ({
  id: params.id,
  ...(params.metadata && { metadata: params.metadata }),
})

export const fromV03PushConfigId = (
  params: V03GetPushConfigParams | V03DeletePushConfigParams,
): { taskId: string; id?: string } => ({
  taskId: params.id,
  ...(params.pushNotificationConfigId !== undefined && { id: params.pushNotificationConfigId }),
})
