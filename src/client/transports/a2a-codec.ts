import { OUTPUT_ARTIFACT_NAME, switchboardMeta } from '../../dialects/a2a/wire/extensions.ts'
import { fromA2aPart, toA2aPart } from '../../dialects/a2a/wire/parts.ts'
import { field, str } from '../../dialects/a2a/wire/read.ts'
import type { A2aPart } from '../../dialects/a2a/wire/shapes.ts'
import { fromA2aState } from '../../dialects/a2a/wire/states.ts'
import type { TaskError } from '../../model/errors.ts'
import { type JsonObject, LOG_LEVELS, type LogLevel } from '../../model/events.ts'
import { newId } from '../../model/ids.ts'
import { isObject } from '../../model/json.ts'
import { messageJson } from '../../model/replies.ts'
import { ClientError } from '../errors.ts'
import type {
  RemoteArtifact,
  RemoteMessage,
  RemoteTask,
  SendPayload,
  SendRequest,
  WireItem,
} from '../types.ts'

/**
 * A2A 1.0 wire ⇄ the client's view. Reading is lenient as ProtoJSON readers are: enum numbers
 * for names, snake_case for camelCase, 0.3 state spellings; unknown fields are ignored. Our
 * server's extensions live under `metadata.switchboard` (log lines, the answer schema, the error).
 */

const protocolError = (what: string): ClientError => new ClientError('PROTOCOL_ERROR', `A2A: ${what}`)

const partsOf = (holder: JsonObject): JsonObject[] => {
  const parts = field(holder, 'parts')
  return Array.isArray(parts) ? parts.filter(isObject) : []
}

const textOf = (parts: JsonObject[]): string | undefined => {
  const texts = parts.map((p) => p.text).filter((t): t is string => typeof t === 'string')
  return texts.length > 0 ? texts.join('\n') : undefined
}

const withMeta = <T extends RemoteArtifact>(artifact: T, part: JsonObject): T => {
  const mediaType = str(part, 'mediaType')
  const filename = str(part, 'filename')
  if (mediaType && artifact.type !== 'log' && artifact.type !== 'json') artifact.mediaType = mediaType
  if (filename && (artifact.type === 'file' || artifact.type === 'url')) artifact.filename = filename
  return artifact
}

/** An Artifact: its first part decides the type; several text parts are one text. */
export const decodeArtifact = (wire: unknown): RemoteArtifact => {
  if (!isObject(wire)) throw protocolError('an artifact is not an object')
  const id = str(wire, 'artifactId')
  const parts = partsOf(wire)
  const first = parts[0]
  if (!id || !first) throw protocolError('an artifact lacks its artifactId or parts')
  const common: { id: string; name?: string; description?: string } = { id }
  const name = str(wire, 'name')
  const description = str(wire, 'description')
  if (name) common.name = name
  if (description) common.description = description
  if (typeof first.text === 'string') {
    const text = textOf(parts)!
    return switchboardMeta(first)?.kind === 'log'
      ? { ...common, type: 'log', text }
      : withMeta({ ...common, type: 'text', text }, first)
  }
  if ('data' in first) return { ...common, type: 'json', value: first.data }
  if (typeof first.url === 'string') return withMeta({ ...common, type: 'file', url: first.url }, first)
  if (typeof first.raw === 'string') return withMeta({ ...common, type: 'file', raw: first.raw }, first)
  throw protocolError(`artifact ${id} has a part with no text, data, url or raw`)
}

/** Our convention for a task's output object: the artifact named "output" with one data part. */
const outputOf = (wire: unknown): JsonObject | undefined => {
  if (!isObject(wire) || wire.name !== OUTPUT_ARTIFACT_NAME) return undefined
  const parts = partsOf(wire)
  return parts.length === 1 && isObject(parts[0]!.data) ? (parts[0]!.data as JsonObject) : undefined
}

const asTaskError = (value: unknown): TaskError | undefined =>
  isObject(value) && typeof value.code === 'string' && typeof value.message === 'string'
    ? (value as unknown as TaskError)
    : undefined

type StatusFields = Extract<WireItem, { kind: 'status' }>

/** An agent's message: its parts in the model's shape, their text and data. */
const decodeMessage = (wire: JsonObject): RemoteMessage => {
  const parts = partsOf(wire).map((part) => fromA2aPart(part as A2aPart))
  const message: RemoteMessage = { messageId: str(wire, 'messageId') ?? '', parts }
  const text = textOf(partsOf(wire))
  if (text !== undefined) message.text = text
  const data = parts.find((part) => part.kind === 'data')
  if (data) message.data = data.data
  return message
}

/**
 * A TaskStatus: the state, its message whatever the state, and what that message means in it
 * (the question, or the error).
 */
const decodeStatus = (wire: unknown): StatusFields => {
  if (!isObject(wire)) throw protocolError('a task status is missing')
  const state = fromA2aState(field(wire, 'state'))
  if (!state) throw protocolError(`unknown task state ${JSON.stringify(field(wire, 'state'))}`)
  const result: StatusFields = { kind: 'status', state }
  const at = str(wire, 'timestamp')
  if (at) result.at = at
  const message = field(wire, 'message')
  const text = isObject(message) ? textOf(partsOf(message)) : undefined
  if (isObject(message)) result.message = decodeMessage(message)
  const ours = switchboardMeta(message)
  if (state === 'INPUT_REQUIRED' || state === 'AUTH_REQUIRED') {
    if (text !== undefined) result.prompt = text
    if (isObject(ours?.inputSchema)) result.inputSchema = ours.inputSchema as JsonObject
  }
  if (state === 'FAILED' || state === 'REJECTED') {
    result.error = asTaskError(ours?.error) ?? { code: state, message: text ?? `the task ended ${state}` }
  }
  return result
}

const applyStatus = (task: RemoteTask, status: StatusFields): void => {
  task.state = status.state
  if (status.at) task.updatedAt = status.at
  for (const key of ['prompt', 'inputSchema', 'error', 'message'] as const) {
    if (status[key] === undefined) delete task[key]
    else (task as unknown as JsonObject)[key] = status[key]
  }
}

/** A Task. */
export const decodeTask = (wire: unknown): RemoteTask => {
  if (!isObject(wire)) throw protocolError('a task is not an object')
  const id = str(wire, 'id')
  if (!id) throw protocolError('a task has no id')
  const status = decodeStatus(field(wire, 'status'))
  const task: RemoteTask = { id, dialect: 'a2a', state: status.state }
  const contextId = str(wire, 'contextId')
  if (contextId) task.contextId = contextId
  applyStatus(task, status)
  const artifacts = field(wire, 'artifacts')
  if (Array.isArray(artifacts)) {
    task.artifacts = artifacts.map(decodeArtifact)
    const output = artifacts.map(outputOf).find((o) => o !== undefined)
    if (output && task.state === 'COMPLETED') task.output = output
  }
  // No output artifact: the final message is the output, as Clawpedia shows it.
  if (task.state === 'COMPLETED' && task.output === undefined && task.message)
    task.output = messageJson(task.message.parts)
  return task
}

/**
 * A Message answer: no task to follow, so it stands for a task that is already over, whose
 * output is the message as `{ text, data }` (what Clawpedia shows for it).
 */
const decodeReply = (wire: JsonObject): RemoteTask => {
  const reply = decodeMessage(wire)
  if (!reply.messageId) throw protocolError('a message has no messageId')
  const task: RemoteTask = {
    id: str(wire, 'taskId') ?? reply.messageId,
    dialect: 'a2a',
    state: 'COMPLETED',
    reply,
    message: reply,
    output: messageJson(reply.parts),
  }
  const contextId = str(wire, 'contextId')
  if (contextId) task.contextId = contextId
  return task
}

/** A SendMessageResponse: `{ task }` or `{ message }` (a bare Task is accepted too). */
export const decodeSendResult = (result: unknown): RemoteTask => {
  if (!isObject(result)) throw protocolError('SendMessage returned no object')
  if (isObject(result.task)) return decodeTask(result.task)
  if (isObject(result.message)) return decodeReply(result.message)
  if ('status' in result && 'id' in result) return decodeTask(result)
  if ('messageId' in result && 'parts' in result) return decodeReply(result)
  throw protocolError('SendMessage returned neither a task nor a message')
}

const levelOf = (value: unknown): LogLevel => {
  const upper = typeof value === 'string' ? value.toUpperCase() : ''
  return (LOG_LEVELS as readonly string[]).includes(upper) ? (upper as LogLevel) : 'INFO'
}

/** One StreamResponse (a stream item or a push body) as a protocol-neutral item; undefined to skip. */
export const decodeStreamResponse = (value: unknown): WireItem | undefined => {
  if (!isObject(value)) throw protocolError('a stream item is not an object')
  if (isObject(value.task)) return { kind: 'task', task: decodeTask(value.task), snapshot: true }
  const statusUpdate = field(value, 'statusUpdate')
  if (isObject(statusUpdate)) {
    const status = field(statusUpdate, 'status')
    const message = isObject(status) ? field(status, 'message') : undefined
    const ours = switchboardMeta(message)
    if (ours?.kind === 'log' && isObject(message) && isObject(status)) {
      const at = str(status, 'timestamp') ?? new Date().toISOString()
      return { kind: 'log', level: levelOf(ours.level), message: textOf(partsOf(message)) ?? '', at }
    }
    return decodeStatus(status)
  }
  const artifactUpdate = field(value, 'artifactUpdate')
  if (isObject(artifactUpdate)) {
    const wire = field(artifactUpdate, 'artifact')
    const item: Extract<WireItem, { kind: 'artifact' }> = { kind: 'artifact', artifact: decodeArtifact(wire) }
    if (field(artifactUpdate, 'append') === true) item.append = true
    const lastChunk = field(artifactUpdate, 'lastChunk')
    if (typeof lastChunk === 'boolean') item.lastChunk = lastChunk
    const output = outputOf(wire)
    if (output) item.output = output
    return item
  }
  // A Message in a stream is an agent reply, not a task event.
  if (isObject(value.message)) return undefined
  throw protocolError('a stream item is none of task, message, statusUpdate, artifactUpdate')
}

/** The task id a StreamResponse is about (push bodies are routed by it). */
export const taskIdOfStreamResponse = (value: unknown): string | undefined => {
  if (!isObject(value)) return undefined
  if (isObject(value.task)) return str(value.task, 'id')
  for (const name of ['statusUpdate', 'artifactUpdate', 'message']) {
    const inner = field(value, name)
    if (isObject(inner)) return str(inner, 'taskId')
  }
  return undefined
}

/** A user message carrying the payload; `taskId`/`contextId` continue an existing task. */
export const encodeMessage = (
  payload: SendPayload,
  ids: { taskId?: string; contextId?: string } = {},
): JsonObject => {
  let message: JsonObject
  if ('input' in payload) {
    message = { parts: [{ data: payload.input, mediaType: 'application/json' }] }
  } else if ('text' in payload) {
    message = { parts: [{ text: payload.text }] }
  } else {
    const { parts, messageId, contextId, referenceTaskIds, metadata } = payload.message
    if (parts.length === 0) throw new ClientError('INVALID_REQUEST', 'a message needs at least one part')
    message = { parts: parts.map(toA2aPart), ...(messageId && { messageId }) }
    if (contextId) message.contextId = contextId
    if (referenceTaskIds?.length) message.referenceTaskIds = referenceTaskIds
    if (metadata) message.metadata = metadata
  }
  message.messageId ??= newId()
  message.role = 'ROLE_USER'
  if (ids.taskId) message.taskId = ids.taskId
  if (ids.contextId) message.contextId = ids.contextId
  return message
}

/**
 * SendMessageRequest for a new task. `returnImmediately`: the handle follows the task itself, so
 * the call answers as soon as the task exists. The messageId is the idempotency key: a retried
 * send (or a failover to another binding) is recognised as the same message.
 */
export const sendMessageRequest = (request: SendRequest): JsonObject => {
  const message = encodeMessage(request.payload, request.contextId ? { contextId: request.contextId } : {})
  message.messageId = request.idempotencyKey
  const configuration: JsonObject = { returnImmediately: true }
  if (request.push) {
    const push: JsonObject = { url: request.push.url }
    if (request.push.token) push.token = request.push.token
    if (request.push.authentication) push.authentication = request.push.authentication
    configuration.taskPushNotificationConfig = push
  }
  return { message, configuration, ...(request.metadata && { metadata: request.metadata }) }
}

/** The follow-up message answering an interrupted task. */
export const inputMessageRequest = (
  task: Pick<RemoteTask, 'id' | 'contextId'>,
  payload: SendPayload,
): JsonObject => ({
  message: encodeMessage(payload, { taskId: task.id, ...(task.contextId && { contextId: task.contextId }) }),
  configuration: { returnImmediately: true },
})

/** A ListTasksResponse; `nextPageToken` missing counts as the last page (digest §9.7). */
export const decodeTaskPage = (result: unknown): { tasks: RemoteTask[]; nextPageToken: string } => {
  if (!isObject(result)) throw protocolError('ListTasks returned no object')
  const tasks = field(result, 'tasks')
  return {
    tasks: Array.isArray(tasks) ? tasks.map(decodeTask) : [],
    nextPageToken: str(result, 'nextPageToken') ?? '',
  }
}
