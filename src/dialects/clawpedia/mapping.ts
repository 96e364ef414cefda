import type { AgentDefinition } from '../../agent/define.ts'
import type { Artifact } from '../../model/artifacts.ts'
import type { TaskEvent } from '../../model/events.ts'
import { messageJson } from '../../model/replies.ts'
import type { TaskState } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import {
  type ClawpediaArtifact,
  type ClawpediaArtifactUpdate,
  type ClawpediaCard,
  type ClawpediaNotification,
  type ClawpediaStatus,
  type ClawpediaTask,
  STATUS_UPDATED,
} from './wire/shapes.ts'

/**
 * The Clawpedia state set has no AUTH_REQUIRED or REJECTED; inventing names is an anti-pattern
 * the reference warns against, so they map to the nearest defined state.
 */
const STATUS: Record<TaskState, ClawpediaStatus> = {
  SUBMITTED: 'SUBMITTED',
  WORKING: 'WORKING',
  INPUT_REQUIRED: 'INPUT_REQUIRED',
  AUTH_REQUIRED: 'INPUT_REQUIRED',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  REJECTED: 'FAILED',
}

export const toClawpediaTask = (task: Task, agentId: string): ClawpediaTask => {
  const wire: ClawpediaTask = {
    task_id: task.id,
    agent_id: agentId,
    status: STATUS[task.state],
    input: task.input,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
  }
  // A task the agent answered with a message has that message as its output: Clawpedia has no other place for it.
  const message = task.statusMessage && messageJson(task.statusMessage.parts)
  if (task.state === 'COMPLETED') wire.output = task.output ?? message ?? {}
  if (message) wire.message = { message_id: task.statusMessage!.messageId, ...message }
  if (task.state === 'INPUT_REQUIRED' || task.state === 'AUTH_REQUIRED') {
    wire.prompt = task.prompt ?? 'More input is required.'
    if (task.inputSchema) wire.input_schema = task.inputSchema
  }
  if (task.state === 'FAILED' || task.state === 'REJECTED') {
    wire.error = task.error ?? { code: task.state, message: `the task ended ${task.state}` }
  }
  return wire
}

/** `contentUrl` is the absolute URL of the artifact's content endpoint (the `content` of a file). */
export const toClawpediaArtifact = (artifact: Artifact, contentUrl: string): ClawpediaArtifact => {
  const metadata: ClawpediaArtifact['metadata'] = { created_at: artifact.createdAt }
  if (artifact.description !== undefined) metadata.description = artifact.description
  const wire = (content: string): ClawpediaArtifact => ({
    artifact_id: artifact.id,
    task_id: artifact.taskId,
    type: artifact.type,
    content,
    metadata,
  })
  switch (artifact.type) {
    case 'file':
      metadata.filename = artifact.filename
      metadata.mime_type = artifact.mediaType
      return wire(contentUrl)
    case 'url':
      if (artifact.filename) metadata.filename = artifact.filename
      if (artifact.mediaType) metadata.mime_type = artifact.mediaType
      return wire(artifact.url)
    case 'json':
      metadata.mime_type = 'application/json'
      return wire(JSON.stringify(artifact.value))
    case 'text':
      if (artifact.mediaType) metadata.mime_type = artifact.mediaType
      return wire(artifact.text)
    case 'log':
      return wire(artifact.text)
  }
}

/**
 * The public card. `auth_header` is left out on purpose: the card is public, the header is a
 * credential, and the orchestrator that configured the webhook already knows it.
 */
export const toClawpediaCard = (agent: AgentDefinition): ClawpediaCard => {
  const card: ClawpediaCard = {
    protocol_version: '1.0',
    agent_id: agent.id,
    display_name: agent.name,
    description: agent.description,
    capabilities: [...(agent.capabilities ?? [])],
    input_schema: agent.inputSchema,
  }
  if (agent.outputSchema) card.output_schema = agent.outputSchema
  if (agent.notification) card.notification_config = { endpoint_url: agent.notification.endpointUrl }
  return card
}

export const toClawpediaNotification = (task: Task, agentId: string, at: string): ClawpediaNotification => ({
  event_type: STATUS_UPDATED,
  timestamp: at,
  data: toClawpediaTask(task, agentId),
})

/** The SSE frame of an event, or undefined for events the Clawpedia stream does not carry (input turns). */
export const toClawpediaFrame = (
  event: TaskEvent,
  task: Task,
  agentId: string,
): { event: string; data: unknown } | undefined => {
  switch (event.kind) {
    case 'log':
      return { event: 'log', data: { timestamp: event.at, level: event.level, message: event.message } }
    case 'artifact': {
      const data: ClawpediaArtifactUpdate = { artifact_id: event.artifact.id }
      if (event.artifact.stream) {
        // A stream is text: it has no content URL.
        data.artifact = toClawpediaArtifact(event.artifact, '')
        data.last_chunk = false
      }
      return { event: 'artifact.update', data }
    }
    case 'chunk': {
      const data: ClawpediaArtifactUpdate = {
        artifact_id: event.artifactId,
        append: true,
        content: event.text,
        last_chunk: event.lastChunk,
      }
      return { event: 'artifact.update', data }
    }
    case 'status':
      return { event: 'status', data: toClawpediaTask(task, agentId) }
    case 'input':
      return undefined
  }
}
