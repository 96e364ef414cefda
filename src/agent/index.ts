export type {
  ArtifactSpec,
  ArtifactStream,
  ArtifactStreamSpec,
  AuthRequest,
  FetchedFile,
  LogLevelName,
  TaskContext,
} from './context.ts'
export {
  type AgentDefinition,
  AgentError,
  type AgentExtension,
  type AgentSkill,
  type AgentSpec,
  defineAgent,
  type ExtendedCard,
  type NotificationConfig,
  TaskRejection,
} from './define.ts'
