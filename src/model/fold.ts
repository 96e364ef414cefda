import { SwitchboardError } from './errors.ts'
import type { ChunkEvent, EventBody, TaskEvent } from './events.ts'
import { canTransition, isTerminal, type TaskState } from './states.ts'
import type { Answer, Task, TaskHeader } from './task.ts'

/** Nothing follows a terminal state: the one check every event, of any kind, must pass. */
export const assertNotTerminal = (taskId: string, state: TaskState): void => {
  if (isTerminal(state)) {
    throw new SwitchboardError('TASK_TERMINAL', `task ${taskId} is ${state} and cannot change`, { state })
  }
}

/** The part of a task fixed at birth. */
export const headerOf = (task: Task): TaskHeader => {
  const header: TaskHeader = {
    id: task.id,
    tenant: task.tenant,
    owner: task.owner,
    agent: task.agent,
    contextId: task.contextId,
    createdAt: task.createdAt,
  }
  if (task.metadata !== undefined) header.metadata = task.metadata
  if (task.caller !== undefined) header.caller = task.caller
  if (task.extensions !== undefined) header.extensions = task.extensions
  if (task.traceContext !== undefined) header.traceContext = task.traceContext
  return header
}

/**
 * A task before its first event: the fold's starting value. Spelled out rather than spread from the
 * header: a spread-built object takes V8's slow path for every property added to it later, and the
 * fold adds several (see stampEvent).
 */
export const emptyTask = (header: TaskHeader): Task => {
  const task: Task = {
    id: header.id,
    tenant: header.tenant,
    owner: header.owner,
    agent: header.agent,
    contextId: header.contextId,
    createdAt: header.createdAt,
    state: 'SUBMITTED',
    statusAt: header.createdAt,
    updatedAt: header.createdAt,
    version: 0,
    input: {},
    answers: [],
    artifacts: [],
    history: [],
    logCount: 0,
  }
  if (header.metadata !== undefined) task.metadata = header.metadata
  if (header.caller !== undefined) task.caller = header.caller
  if (header.extensions !== undefined) task.extensions = header.extensions
  if (header.traceContext !== undefined) task.traceContext = header.traceContext
  return task
}

/**
 * Folds one event into the task, in place, after checking that the event is allowed: nothing
 * follows a terminal state, status changes follow the transition table, and an answer is only
 * accepted while the task waits for input. The store calls this inside the transaction that
 * appends the event, so the same rule decides every race.
 */
export const applyEvent = (task: Task, event: TaskEvent): Task => {
  if (event.seq !== task.version + 1) {
    throw new SwitchboardError('INTERNAL', `event seq ${event.seq} does not follow version ${task.version}`)
  }
  assertNotTerminal(task.id, task.state)
  switch (event.kind) {
    case 'status': {
      // A task is born with [input, SUBMITTED]; SUBMITTED is never re-entered afterwards.
      const opening = event.state === 'SUBMITTED' && task.version <= 1
      // Not a transition: a WORKING task says something while it works (a resumed run says why).
      const update = event.state === 'WORKING' && task.state === 'WORKING' && event.message !== undefined
      if (!opening && !update && !canTransition(task.state, event.state)) {
        throw new SwitchboardError(
          'INVALID_TRANSITION',
          `task ${task.id} cannot go from ${task.state} to ${event.state}`,
          {
            from: task.state,
            to: event.state,
          },
        )
      }
      task.state = event.state
      task.statusAt = event.at
      // Only when set, or to clear an earlier one: no task carries these keys as undefined.
      if (event.prompt !== undefined || task.prompt !== undefined) task.prompt = event.prompt
      if (event.inputSchema !== undefined || task.inputSchema !== undefined)
        task.inputSchema = event.inputSchema
      if (event.auth !== undefined || task.auth !== undefined) task.auth = event.auth
      if (event.messageId !== undefined || task.statusMessageId !== undefined)
        task.statusMessageId = event.messageId
      if (event.message !== undefined || task.statusMessage !== undefined) task.statusMessage = event.message
      if (event.error) task.error = event.error
      if (event.output) task.output = event.output
      // The agent's final message is a turn of the conversation, like its questions.
      if (event.message) task.history.push(event.message)
      if (event.prompt && event.messageId) {
        task.history.push({
          messageId: event.messageId,
          role: 'agent',
          parts: [{ kind: 'text', text: event.prompt }],
          contextId: task.contextId,
          taskId: task.id,
        })
      }
      break
    }
    case 'input': {
      const isFirst = task.version === 0
      if (isFirst) {
        task.input = event.input
        if (event.text !== undefined) task.text = event.text
      } else {
        if (task.state !== 'INPUT_REQUIRED' && task.state !== 'AUTH_REQUIRED') {
          throw new SwitchboardError(
            'TASK_NOT_AWAITING_INPUT',
            `task ${task.id} is ${task.state}, not waiting for input`,
            {
              state: task.state,
            },
          )
        }
        const answer: Answer = { input: event.input }
        if (event.text !== undefined) answer.text = event.text
        if (event.message) answer.messageId = event.message.messageId
        task.answers.push(answer)
      }
      if (event.message) task.history.push(event.message)
      break
    }
    case 'log':
      task.logCount += 1
      break
    case 'artifact':
    case 'chunk':
      foldArtifacts(task, event)
      break
  }
  task.version = event.seq
  task.updatedAt = event.at
  return task
}

/** Whether the event changes the task's artifacts: an artifact, or a chunk of a streamed one. */
export const changesArtifacts = (event: EventBody): boolean =>
  event.kind === 'artifact' || event.kind === 'chunk'

/**
 * What an event does to the task's artifacts, and nothing else: a store that keeps the artifacts
 * apart from the rest of a snapshot, at an older version, folds the events in between with this.
 */
export const foldArtifacts = (task: Pick<Task, 'artifacts'>, event: TaskEvent): void => {
  if (event.kind === 'artifact') task.artifacts.push(event.artifact)
  else if (event.kind === 'chunk') appendChunk(task, event)
}

/** Where the artifact with this id is in the task's list, or -1. Streams are usually the latest. */
export const artifactIndex = (task: Pick<Task, 'artifacts'>, artifactId: string): number => {
  for (let i = task.artifacts.length - 1; i >= 0; i--) if (task.artifacts[i]!.id === artifactId) return i
  return -1
}

/**
 * A chunk joins its streamed artifact. The artifact is replaced, not changed in place: the one in
 * the list may be the opening event's own object, which a store still has to write as it was.
 * `+` on strings is cheap here (V8 joins them as a rope, flattened once when read), so a stream of
 * thousands of chunks folds in linear time. The engine only writes chunks to an open stream; one
 * that does not fit (no such stream, or one already done) is left out rather than refused, since
 * a store may have recorded it without folding, and a log must always fold.
 */
const appendChunk = (task: Pick<Task, 'artifacts'>, event: ChunkEvent): void => {
  const index = artifactIndex(task, event.artifactId)
  const artifact = task.artifacts[index]
  if (artifact?.type !== 'text' || !artifact.stream || artifact.stream.done) return
  const grown = Object.assign({}, artifact)
  grown.text = artifact.text + event.text
  grown.stream = { chunks: artifact.stream.chunks + 1, done: event.lastChunk }
  task.artifacts[index] = grown
}

/** The task as the fold of its whole log. */
export const fold = (header: TaskHeader, events: Iterable<TaskEvent>): Task => {
  const task = emptyTask(header)
  for (const event of events) applyEvent(task, event)
  return task
}
