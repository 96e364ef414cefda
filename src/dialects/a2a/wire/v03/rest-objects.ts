import type { JsonObject } from '../../../../model/events.ts'
import { isObject } from '../../../../model/json.ts'
import { field, str } from '../read.ts'
import type {
  A2aArtifact,
  A2aMessage,
  A2aPart,
  A2aTask,
  A2aTaskStatus,
  SendMessageResponse,
  StreamResponse,
} from '../shapes.ts'
import { A2A_TASK_STATES, type A2aTaskState } from '../states.ts'
import {
  V03_REST_ROLES,
  V03_REST_TASK_STATES,
  type V03RestArtifact,
  type V03RestMessage,
  type V03RestPart,
  type V03RestSendMessageResponse,
  type V03RestStreamResponse,
  type V03RestTask,
  type V03RestTaskState,
  type V03RestTaskStatus,
} from './rest-shapes.ts'
import { convertArtifact, convertStatus, convertTask, messageFields } from './same-fields.ts'
import { V03_WRAPPED_DATA_KEY } from './to-v03.ts'

/**
 * The A2A data objects between their 0.3 HTTP+JSON shapes and their 1.0 ProtoJSON ones, both ways,
 * as pure functions. `…ToV03` is what a 0.3 peer is sent (the server's answers, the client's
 * requests); `…FromV03` is what it sent, read leniently as ProtoJSON readers do (proto names,
 * enum numbers; unknown fields ignored), for the 1.0 checks and decoders to take from there.
 *
 * What 0.3 cannot carry is dropped on the way there: a part's `filename` and `metadata`, a
 * message's `referenceTaskIds`. A 1.0 data part whose value is not an object (0.3 wants a Struct)
 * goes wrapped, as over 0.3 JSON-RPC (`{ value: … }`).
 */

const list = (holder: JsonObject, camel: string): JsonObject[] => {
  const value = field(holder, camel)
  return Array.isArray(value) ? value.filter(isObject) : []
}

// ---- toward 0.3 -------------------------------------------------------------------------------

export const stateToV03 = (state: A2aTaskState): V03RestTaskState =>
  state === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : state

export const partToV03 = (part: A2aPart): V03RestPart => {
  if (part.text !== undefined) return { text: part.text }
  const mimeType = part.mediaType ? { mimeType: part.mediaType } : {}
  if (part.url !== undefined) return { file: { fileWithUri: part.url, ...mimeType } }
  if (part.raw !== undefined) return { file: { fileWithBytes: part.raw, ...mimeType } }
  return {
    data: {
      data: isObject(part.data) ? part.data : { [V03_WRAPPED_DATA_KEY]: part.data ?? null },
    },
  }
}

/** The HTTP+JSON Message has no `referenceTaskIds`. */
export const messageToV03 = (message: A2aMessage): V03RestMessage => {
  const { referenceTaskIds: _dropped, ...fields } = messageFields(message)
  return {
    messageId: message.messageId,
    role: message.role,
    content: message.parts.map(partToV03),
    ...fields,
  }
}

export const statusToV03 = (status: A2aTaskStatus): V03RestTaskStatus =>
  convertStatus(status, stateToV03, messageToV03)

export const artifactToV03 = (artifact: A2aArtifact): V03RestArtifact => convertArtifact(artifact, partToV03)

export const taskToV03 = (task: A2aTask): V03RestTask =>
  convertTask(task, { status: statusToV03, artifact: artifactToV03, message: messageToV03 })

/** One stream item; `final` (a status update's) is set by the caller, who knows whether the stream ends with it. */
export const streamResponseToV03 = (response: StreamResponse, final = false): V03RestStreamResponse => {
  if ('task' in response) return { task: taskToV03(response.task) }
  if ('message' in response) return { message: messageToV03(response.message) }
  if ('statusUpdate' in response) {
    const { taskId, contextId, status, metadata } = response.statusUpdate
    const update = { taskId, contextId, status: statusToV03(status), ...(metadata && { metadata }) }
    return { statusUpdate: final ? { ...update, final: true } : update }
  }
  const { artifact, ...rest } = response.artifactUpdate
  return { artifactUpdate: { ...rest, artifact: artifactToV03(artifact) } }
}

export const sendResponseToV03 = (response: SendMessageResponse): V03RestSendMessageResponse =>
  'task' in response ? { task: taskToV03(response.task) } : { message: messageToV03(response.message) }

// ---- from 0.3 ---------------------------------------------------------------------------------

/** A 0.3 state (name or number) by its 1.0 name; unknown values pass through for the check to refuse. */
export const stateFromV03 = (value: unknown): unknown => {
  const name = typeof value === 'number' ? V03_REST_TASK_STATES[value] : value
  if (name === 'TASK_STATE_CANCELLED') return 'TASK_STATE_CANCELED'
  return typeof name === 'string' && (A2A_TASK_STATES as readonly string[]).includes(name) ? name : value
}

/** What the reading side builds: a 1.0 object, checked or decoded by the 1.0 code after. */
type Wire = Record<string, unknown>

const roleFromV03 = (value: unknown): unknown =>
  typeof value === 'number' && V03_REST_ROLES[value] !== undefined ? V03_REST_ROLES[value] : value

export const partFromV03 = (part: Wire): Wire => {
  if ('text' in part) return { text: part.text }
  const file = field(part, 'file')
  if (isObject(file)) {
    const mediaType = str(file, 'mimeType')
    const common = mediaType ? { mediaType } : {}
    const uri = field(file, 'fileWithUri')
    if (uri !== undefined && uri !== null) return { url: uri, ...common }
    return { raw: field(file, 'fileWithBytes'), ...common }
  }
  const data = field(part, 'data')
  return { data: isObject(data) ? data.data : data }
}

export const messageFromV03 = (message: Wire): Wire => {
  const wire: Wire = { ...message, role: roleFromV03(field(message, 'role')) }
  delete wire.content
  wire.parts = list(message, 'content').map(partFromV03)
  return wire
}

export const statusFromV03 = (status: Wire): Wire => {
  const wire: Wire = { ...status, state: stateFromV03(field(status, 'state')) }
  const message = field(status, 'message') ?? field(status, 'update')
  delete wire.update
  if (isObject(message)) wire.message = messageFromV03(message)
  return wire
}

export const artifactFromV03 = (artifact: Wire): Wire => ({
  ...artifact,
  parts: list(artifact, 'parts').map(partFromV03),
})

export const taskFromV03 = (task: Wire): Wire => {
  const wire: Wire = { ...task }
  const status = field(task, 'status')
  if (isObject(status)) wire.status = statusFromV03(status)
  if (Array.isArray(field(task, 'artifacts'))) wire.artifacts = list(task, 'artifacts').map(artifactFromV03)
  if (Array.isArray(field(task, 'history'))) wire.history = list(task, 'history').map(messageFromV03)
  return wire
}

/** A 0.3 StreamResponse (or SendMessageResponse) as the 1.0 one; anything unrecognised as given. */
export const streamResponseFromV03 = (value: unknown): unknown => {
  if (!isObject(value)) return value
  if (isObject(value.task)) return { task: taskFromV03(value.task) }
  const message = value.message ?? value.msg
  if (isObject(message)) return { message: messageFromV03(message) }
  const status = field(value, 'statusUpdate')
  if (isObject(status)) {
    const inner = field(status, 'status')
    return { statusUpdate: { ...status, ...(isObject(inner) && { status: statusFromV03(inner) }) } }
  }
  const artifact = field(value, 'artifactUpdate')
  if (isObject(artifact)) {
    const inner = field(artifact, 'artifact')
    return { artifactUpdate: { ...artifact, ...(isObject(inner) && { artifact: artifactFromV03(inner) }) } }
  }
  return value
}
