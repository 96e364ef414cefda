import { STATUS_UPDATED } from '../../dialects/clawpedia/wire/shapes.ts'
import type { TaskError } from '../../model/errors.ts'
import { type JsonObject, LOG_LEVELS, type LogLevel } from '../../model/events.ts'
import { isObject } from '../../model/json.ts'
import { textOf } from '../../model/parts.ts'
import { isTaskState } from '../../model/states.ts'
import { ClientError } from '../errors.ts'
import type { RemoteArtifact, RemoteMessage, RemoteTask, SendPayload, WireItem } from '../types.ts'

/** Clawpedia wire (snake_case, the reference's shapes plus our extensions) ⇄ the client's view. */

const protocolError = (what: string): ClientError => new ClientError('PROTOCOL_ERROR', `Clawpedia: ${what}`)

const str = (object: JsonObject, name: string): string | undefined => {
  const value = object[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Our extension: the agent's final message, `{ message_id, text?, data? }`, as the parts it stands for. */
const decodeMessage = (wire: JsonObject): RemoteMessage => {
  const message: RemoteMessage = { messageId: str(wire, 'message_id') ?? '', parts: [] }
  if (typeof wire.text === 'string') {
    message.text = wire.text
    message.parts.push({ kind: 'text', text: wire.text })
  }
  if (wire.data !== undefined) {
    message.data = wire.data
    message.parts.push({ kind: 'data', data: wire.data, mediaType: 'application/json' })
  }
  return message
}

export const decodeClawpediaTask = (wire: unknown): RemoteTask => {
  if (!isObject(wire)) throw protocolError('a task is not an object')
  const id = str(wire, 'task_id')
  if (!id) throw protocolError('a task has no task_id')
  if (!isTaskState(wire.status))
    throw protocolError(`task ${id} has an unknown status ${JSON.stringify(wire.status)}`)
  const task: RemoteTask = { id, dialect: 'clawpedia', state: wire.status }
  if (isObject(wire.input)) task.input = wire.input as JsonObject
  if (isObject(wire.output)) task.output = wire.output as JsonObject
  const prompt = str(wire, 'prompt')
  if (prompt !== undefined) task.prompt = prompt
  if (isObject(wire.input_schema)) task.inputSchema = wire.input_schema as JsonObject
  if (isObject(wire.error) && typeof wire.error.code === 'string') {
    task.error = { code: wire.error.code, message: String(wire.error.message ?? '') } as TaskError
    if (isObject(wire.error.details)) task.error.details = wire.error.details
  }
  if (isObject(wire.message)) task.message = decodeMessage(wire.message)
  const createdAt = str(wire, 'created_at')
  const updatedAt = str(wire, 'updated_at')
  if (createdAt) task.createdAt = createdAt
  if (updatedAt) task.updatedAt = updatedAt
  return task
}

export const decodeClawpediaArtifact = (wire: unknown): RemoteArtifact => {
  if (!isObject(wire)) throw protocolError('an artifact is not an object')
  const id = str(wire, 'artifact_id')
  const content = typeof wire.content === 'string' ? wire.content : undefined
  if (!id || content === undefined) throw protocolError('an artifact lacks artifact_id or content')
  const metadata = isObject(wire.metadata) ? wire.metadata : {}
  const common: { id: string; description?: string; createdAt?: string } = { id }
  const description = str(metadata, 'description')
  const createdAt = str(metadata, 'created_at')
  if (description) common.description = description
  if (createdAt) common.createdAt = createdAt
  const filename = str(metadata, 'filename')
  const mediaType = str(metadata, 'mime_type')
  const files = { ...(filename && { filename }), ...(mediaType && { mediaType }) }
  switch (wire.type) {
    case 'file':
      return { ...common, type: 'file', url: content, ...files }
    case 'url':
      return { ...common, type: 'url', url: content, ...files }
    case 'json':
      try {
        return { ...common, type: 'json', value: JSON.parse(content) }
      } catch {
        throw protocolError(`json artifact ${id} does not hold JSON`)
      }
    case 'text':
      return { ...common, type: 'text', text: content, ...(mediaType && { mediaType }) }
    case 'log':
      return { ...common, type: 'log', text: content }
    default:
      throw protocolError(`artifact ${id} has an unknown type ${JSON.stringify(wire.type)}`)
  }
}

/**
 * An `artifact.update` frame: the reference's names an artifact to fetch; ours for a streamed
 * artifact carry it (the opening) or the piece to append (ClawpediaArtifactUpdate).
 */
const decodeArtifactUpdate = (id: string, data: JsonObject): WireItem => {
  const lastChunk = typeof data.last_chunk === 'boolean' ? { lastChunk: data.last_chunk } : {}
  if (data.append === true && typeof data.content === 'string')
    return {
      kind: 'artifact',
      artifact: { id, type: 'text', text: data.content },
      append: true,
      ...lastChunk,
    }
  if (isObject(data.artifact))
    return { kind: 'artifact', artifact: decodeClawpediaArtifact(data.artifact), ...lastChunk }
  return { kind: 'artifact-ref', artifactId: id }
}

const levelOf = (value: unknown): LogLevel => {
  const upper = typeof value === 'string' ? value.toUpperCase() : ''
  return (LOG_LEVELS as readonly string[]).includes(upper) ? (upper as LogLevel) : 'INFO'
}

/** One SSE event of `/tasks/{id}/stream` as a protocol-neutral item; undefined for unknown events. */
export const decodeClawpediaEvent = (event: {
  event?: string | undefined
  data: string
}): WireItem | undefined => {
  let data: unknown
  try {
    data = JSON.parse(event.data)
  } catch {
    throw protocolError(`a "${event.event}" stream event is not JSON`)
  }
  switch (event.event) {
    case 'status':
      return { kind: 'task', task: decodeClawpediaTask(data), snapshot: false }
    case 'log': {
      const log = isObject(data) ? data : {}
      return {
        kind: 'log',
        level: levelOf(log.level),
        message: String(log.message ?? ''),
        at: str(log, 'timestamp') ?? new Date().toISOString(),
      }
    }
    case 'artifact.update': {
      const id = isObject(data) ? str(data, 'artifact_id') : undefined
      if (!id || !isObject(data)) throw protocolError('an artifact.update event has no artifact_id')
      return decodeArtifactUpdate(id, data)
    }
    case 'ping':
      return { kind: 'ping' }
    default:
      return undefined
  }
}

/** A `task.status.updated` notification: the task it carries, or undefined when it is not one. */
export const decodeClawpediaNotification = (body: unknown): RemoteTask | undefined =>
  isObject(body) && body.event_type === STATUS_UPDATED && isObject(body.data)
    ? decodeClawpediaTask(body.data)
    : undefined

/**
 * Clawpedia takes one JSON input object. A text becomes `{ text }`; a message gives its data
 * part, or its text.
 */
export const clawpediaInputOf = (payload: SendPayload): JsonObject => {
  if ('input' in payload) return payload.input
  if ('text' in payload) return { text: payload.text }
  const data = payload.message.parts.find((part) => part.kind === 'data' && isObject(part.data))
  if (data && data.kind === 'data') return data.data as JsonObject
  const text = textOf(payload.message.parts)
  if (text !== undefined) return { text }
  throw new ClientError('INVALID_REQUEST', 'a Clawpedia task takes a JSON object: send a data or text part')
}
