/**
 * `switchboard`: the protocol-neutral model and the agent authoring API. The server is
 * `switchboard/server`, the client `switchboard/client`.
 */
export * from './agent/index.ts'
export type { Artifact, ArtifactType } from './model/artifacts.ts'
export { ANONYMOUS, type AuthRequirement, type CallerIdentity, hasScope, SCOPES } from './model/caller.ts'
export { ERROR_CODES, type ErrorCode, SwitchboardError, type TaskError } from './model/errors.ts'
export type { EventBody, JsonObject, LogLevel, TaskEvent } from './model/events.ts'
export { data, file, type Message, type Part, text } from './model/parts.ts'
export { isTerminal, TASK_STATES, type TaskState } from './model/states.ts'
export type { Answer, Task } from './model/task.ts'
