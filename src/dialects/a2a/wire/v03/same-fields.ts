/**
 * The walks 0.3 and 1.0 objects share: a message's, an artifact's, a status's and a task's
 * fields that have the same name and meaning in both versions, copied when set (an empty string
 * or list is unset, as in proto3), with the parts that differ (parts, states, nested objects)
 * converted by the caller's functions. The same code serves both directions and both 0.3
 * bindings.
 */

type Metadata = Record<string, unknown>

export interface MessageFields {
  contextId?: string
  taskId?: string
  referenceTaskIds?: string[]
  extensions?: string[]
  metadata?: Metadata
}

export const messageFields = (message: MessageFields): MessageFields => {
  const wire: MessageFields = {}
  if (message.contextId) wire.contextId = message.contextId
  if (message.taskId) wire.taskId = message.taskId
  if (message.referenceTaskIds?.length) wire.referenceTaskIds = message.referenceTaskIds
  if (message.extensions?.length) wire.extensions = message.extensions
  if (message.metadata) wire.metadata = message.metadata
  return wire
}

export interface ArtifactFields {
  name?: string
  description?: string
  metadata?: Metadata
  extensions?: string[]
}

export const artifactFields = (artifact: ArtifactFields): ArtifactFields => {
  const wire: ArtifactFields = {}
  if (artifact.name !== undefined) wire.name = artifact.name
  if (artifact.description !== undefined) wire.description = artifact.description
  if (artifact.metadata) wire.metadata = artifact.metadata
  if (artifact.extensions?.length) wire.extensions = artifact.extensions
  return wire
}

/** An artifact, its parts converted by `part`. */
export const convertArtifact = <FromPart, ToPart>(
  artifact: ArtifactFields & { artifactId: string; parts: FromPart[] },
  part: (part: FromPart) => ToPart,
): ArtifactFields & { artifactId: string; parts: ToPart[] } => ({
  artifactId: artifact.artifactId,
  parts: artifact.parts.map(part),
  ...artifactFields(artifact),
})

export interface StatusOf<State, Message> {
  state: State
  message?: Message
  timestamp?: string
}

export const convertStatus = <FromState, ToState, FromMessage, ToMessage>(
  status: StatusOf<FromState, FromMessage>,
  state: (state: FromState) => ToState,
  message: (message: FromMessage) => ToMessage,
): StatusOf<ToState, ToMessage> => {
  const wire: StatusOf<ToState, ToMessage> = { state: state(status.state) }
  if (status.message) wire.message = message(status.message)
  if (status.timestamp) wire.timestamp = status.timestamp
  return wire
}

export interface TaskOf<Status, Artifact, Message> {
  id: string
  contextId: string
  status: Status
  artifacts?: Artifact[]
  history?: Message[]
  metadata?: Metadata
}

export const convertTask = <FromStatus, ToStatus, FromArtifact, ToArtifact, FromMessage, ToMessage>(
  task: TaskOf<FromStatus, FromArtifact, FromMessage>,
  convert: {
    status: (status: FromStatus) => ToStatus
    artifact: (artifact: FromArtifact) => ToArtifact
    message: (message: FromMessage) => ToMessage
  },
): TaskOf<ToStatus, ToArtifact, ToMessage> => {
  const wire: TaskOf<ToStatus, ToArtifact, ToMessage> = {
    id: task.id,
    contextId: task.contextId,
    status: convert.status(task.status),
  }
  if (task.artifacts?.length) wire.artifacts = task.artifacts.map(convert.artifact)
  if (task.history?.length) wire.history = task.history.map(convert.message)
  if (task.metadata) wire.metadata = task.metadata
  return wire
}
