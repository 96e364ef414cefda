import { createHash } from 'node:crypto'
import type { Artifact } from '../../model/artifacts.ts'
import type { ChunkEvent, TaskEvent } from '../../model/events.ts'
import { artifactIndex } from '../../model/fold.ts'
import type { Message } from '../../model/parts.ts'
import type { PushConfig } from '../../model/push.ts'
import { isDirectReply } from '../../model/replies.ts'
import type { Task } from '../../model/task.ts'
import { isA2aPushTarget } from './push-target.ts'
import { OUTPUT_ARTIFACT_NAME, SWITCHBOARD_KEY } from './wire/extensions.ts'
import { toA2aPart } from './wire/parts.ts'
import type {
  A2aArtifact,
  A2aArtifactUpdate,
  A2aMessage,
  A2aPart,
  A2aStatusUpdate,
  A2aTask,
  A2aTaskStatus,
  StreamItem,
  TaskPushNotificationConfig,
} from './wire/shapes.ts'
import { toA2aState } from './wire/states.ts'

const NAMESPACE = Buffer.from('6f1d3c2a8e4b4d7f9a0c5b2e1f3d7a96', 'hex')

/**
 * The same task is rendered again and again (every GetTask, every stream item of a completed
 * task), and a SHA-1 costs more than the rest of the mapping: remember the latest names. Bounded:
 * cleared when full.
 */
const recentUuids = new Map<string, string>()
const RECENT_UUIDS = 4096

/**
 * A name-based (version 5) UUID: ids we must render identically on every read (the output
 * artifact, status messages) without storing them.
 */
export const stableUuid = (name: string): string => {
  const cached = recentUuids.get(name)
  if (cached !== undefined) return cached
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  if (recentUuids.size >= RECENT_UUIDS) recentUuids.clear()
  recentUuids.set(name, uuid)
  return uuid
}

/** The artifactId of a completed task's output: derived from the task id, the same on every read. */
export const outputArtifactId = (taskId: string): string => stableUuid(`${taskId}/output`)

/** A history turn; it belongs to the task whatever the client put in its ids. */
export const toA2aMessage = (message: Message, task: Pick<Task, 'id' | 'contextId'>): A2aMessage => {
  const wire: A2aMessage = {
    messageId: message.messageId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: message.parts.map(toA2aPart),
    contextId: task.contextId,
    taskId: task.id,
  }
  if (message.referenceTaskIds?.length) wire.referenceTaskIds = message.referenceTaskIds
  if (message.extensions?.length) wire.extensions = message.extensions
  if (message.metadata) wire.metadata = message.metadata
  return wire
}

const agentMessage = (
  task: Pick<Task, 'id' | 'contextId'>,
  messageId: string,
  text: string,
  metadata?: Record<string, unknown>,
): A2aMessage => {
  const message: A2aMessage = {
    messageId,
    role: 'ROLE_AGENT',
    parts: [{ text }],
    contextId: task.contextId,
    taskId: task.id,
  }
  if (metadata) message.metadata = metadata
  return message
}

/**
 * A file's bytes stay on the server, its part a link to the Clawpedia content endpoint, unless
 * the file is small enough to have been kept inline: then they travel in the part (`raw`).
 * `baseUrl` is the absolute base URL of the agent mount the task belongs to.
 */
export const toA2aArtifact = (artifact: Artifact, baseUrl: string): A2aArtifact => {
  const part = ((): A2aPart => {
    switch (artifact.type) {
      case 'text':
        return artifact.mediaType
          ? { text: artifact.text, mediaType: artifact.mediaType }
          : { text: artifact.text }
      case 'json':
        return { data: artifact.value, mediaType: 'application/json' }
      case 'file':
        return artifact.raw !== undefined
          ? { raw: artifact.raw, mediaType: artifact.mediaType, filename: artifact.filename }
          : {
              url: `${baseUrl}/artifacts/${artifact.id}/content`,
              mediaType: artifact.mediaType,
              filename: artifact.filename,
            }
      case 'url': {
        const wire: A2aPart = { url: artifact.url }
        if (artifact.mediaType) wire.mediaType = artifact.mediaType
        if (artifact.filename) wire.filename = artifact.filename
        return wire
      }
      case 'log':
        return {
          text: artifact.text,
          mediaType: 'text/plain',
          metadata: { [SWITCHBOARD_KEY]: { kind: 'log' } },
        }
    }
  })()
  const wire: A2aArtifact = { artifactId: artifact.id, parts: [part] }
  if (artifact.name !== undefined) wire.name = artifact.name
  if (artifact.description !== undefined) wire.description = artifact.description
  return wire
}

/** A completed task's output object, as an artifact named "output" with one data part. */
export const outputArtifact = (task: Pick<Task, 'id' | 'output'>): A2aArtifact | undefined =>
  task.output === undefined
    ? undefined
    : {
        artifactId: outputArtifactId(task.id),
        name: OUTPUT_ARTIFACT_NAME,
        parts: [{ data: task.output, mediaType: 'application/json' }],
      }

/**
 * The status as A2A shows it. An interrupted task carries its question as an agent message (the
 * id the engine recorded with it; the answer's schema, and for AUTH_REQUIRED what to authorize
 * and where, in metadata); a failed or rejected one, its error (in metadata), as the agent's
 * final message when it gave one, else as text under an id derived from the task so every read
 * renders the same message; any other state, the agent's final message if there is one.
 */
export const toA2aStatus = (task: Task): A2aTaskStatus => {
  const status: A2aTaskStatus = { state: toA2aState(task.state), timestamp: task.statusAt }
  if (task.state === 'INPUT_REQUIRED' || task.state === 'AUTH_REQUIRED') {
    const ours = Object.assign(
      {},
      task.inputSchema && { inputSchema: task.inputSchema },
      task.auth && { auth: task.auth },
    )
    const metadata = task.inputSchema || task.auth ? { [SWITCHBOARD_KEY]: ours } : undefined
    status.message = agentMessage(
      task,
      task.statusMessageId ?? stableUuid(`${task.id}/status/${task.version}`),
      task.prompt ?? 'More input is required.',
      metadata,
    )
  } else if ((task.state === 'FAILED' || task.state === 'REJECTED') && task.error) {
    const ours = { [SWITCHBOARD_KEY]: { error: task.error } }
    status.message = task.statusMessage
      ? toA2aMessage({ ...task.statusMessage, metadata: { ...task.statusMessage.metadata, ...ours } }, task)
      : agentMessage(task, stableUuid(`${task.id}/status/${task.state}`), task.error.message, ours)
  } else if (task.statusMessage) {
    status.message = toA2aMessage(task.statusMessage, task)
  }
  return status
}

/**
 * A task that is a direct reply (the agent answered with a message and did nothing else) as the
 * A2A Message a SendMessage answers with. It keeps the task's ids: the task exists (GetTask and
 * ListTasks show it, COMPLETED with this message as its status), and an agent message names its
 * task when there is one.
 */
export const toA2aReply = (task: Task): A2aMessage | undefined =>
  isDirectReply(task) ? toA2aMessage(task.statusMessage!, task) : undefined

export interface TaskView {
  /** Absolute base URL of the agent mount (for file links). */
  baseUrl: string
  /** Unset: all; 0: none; n: the n most recent turns. */
  historyLength?: number | undefined
  includeArtifacts?: boolean
}

export const toA2aTask = (task: Task, view: TaskView): A2aTask => {
  const wire: A2aTask = { id: task.id, contextId: task.contextId, status: toA2aStatus(task) }
  if (view.includeArtifacts !== false) {
    const artifacts = task.artifacts.map((a) => toA2aArtifact(a, view.baseUrl))
    const output = task.state === 'COMPLETED' ? outputArtifact(task) : undefined
    if (output) artifacts.push(output)
    if (artifacts.length > 0) wire.artifacts = artifacts
  }
  const limit = view.historyLength
  const history = limit === undefined ? task.history : limit === 0 ? [] : task.history.slice(-limit)
  if (history.length > 0) wire.history = history.map((m) => toA2aMessage(m, task))
  if (task.metadata && Object.keys(task.metadata).length > 0) wire.metadata = task.metadata
  return wire
}

const statusUpdate = (task: Task, status: A2aTaskStatus): A2aStatusUpdate => ({
  taskId: task.id,
  contextId: task.contextId,
  status,
})

/**
 * An artifact whole (`lastChunk`), or a piece of a streamed one: its opening (empty, not the last
 * chunk), or a chunk appended to it. False flags are left out, as ProtoJSON leaves defaults out.
 */
export const artifactUpdate = (
  task: Pick<Task, 'id' | 'contextId'>,
  artifact: A2aArtifact,
  chunk: { append: boolean; lastChunk: boolean } = { append: false, lastChunk: true },
): A2aArtifactUpdate => {
  const update: A2aArtifactUpdate = { taskId: task.id, contextId: task.contextId, artifact }
  if (chunk.append) update.append = true
  if (chunk.lastChunk) update.lastChunk = true
  return update
}

/**
 * The artifact of one chunk: the streamed artifact's id and name, and the piece as its one text
 * part (with the stream's media type), for a client to append to what it has.
 */
export const chunkArtifact = (task: Task, event: ChunkEvent): A2aArtifact => {
  const stream = task.artifacts[artifactIndex(task, event.artifactId)]
  const part: A2aPart = { text: event.text }
  if (stream?.type === 'text' && stream.mediaType) part.mediaType = stream.mediaType
  const wire: A2aArtifact = { artifactId: event.artifactId, parts: [part] }
  if (stream?.name !== undefined) wire.name = stream.name
  return wire
}

/**
 * The stream items of one event, given the task folded up to and including it. A log line is a
 * status update in the current state whose message is the line (metadata marks it a log); an
 * input turn shows nothing. On completion the output artifact goes first, without an SSE id, so
 * a client resuming from the completion's id never skips it.
 */
export const streamItemsOf = (event: TaskEvent, task: Task, baseUrl: string): StreamItem[] => {
  switch (event.kind) {
    case 'status': {
      const items: StreamItem[] = []
      const output = event.state === 'COMPLETED' ? outputArtifact(task) : undefined
      if (output) items.push({ response: { artifactUpdate: artifactUpdate(task, output) } })
      items.push({ id: event.seq, response: { statusUpdate: statusUpdate(task, toA2aStatus(task)) } })
      return items
    }
    case 'log': {
      const message = agentMessage(task, stableUuid(`${task.id}/log/${event.seq}`), event.message, {
        [SWITCHBOARD_KEY]: { kind: 'log', level: event.level },
      })
      const status: A2aTaskStatus = { state: toA2aState(task.state), message, timestamp: event.at }
      return [{ id: event.seq, response: { statusUpdate: statusUpdate(task, status) } }]
    }
    case 'artifact': {
      const opens = event.artifact.stream !== undefined
      const artifact = toA2aArtifact(event.artifact, baseUrl)
      const update = artifactUpdate(task, artifact, { append: false, lastChunk: !opens })
      return [{ id: event.seq, response: { artifactUpdate: update } }]
    }
    case 'chunk': {
      const update = artifactUpdate(task, chunkArtifact(task, event), {
        append: true,
        lastChunk: event.lastChunk,
      })
      return [{ id: event.seq, response: { artifactUpdate: update } }]
    }
    case 'input':
      return []
  }
}

/** Clawpedia targets share the store but are not A2A configs: A2A never shows them. */
export const toA2aPushConfig = (config: PushConfig): TaskPushNotificationConfig | undefined => {
  const { target } = config
  if (!isA2aPushTarget(target)) return undefined
  const wire: TaskPushNotificationConfig = { id: config.id, taskId: config.taskId, url: target.url }
  if (target.token !== undefined) wire.token = target.token
  if (target.authentication) {
    wire.authentication = { scheme: target.authentication.scheme }
    if (target.authentication.credentials !== undefined)
      wire.authentication.credentials = target.authentication.credentials
  }
  return wire
}
