export type {
  AnswerMessage,
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
  type AgentErrorOptions,
  type AgentExtension,
  type AgentSkill,
  type AgentSpec,
  defineAgent,
  type ExtendedCard,
  type NotificationConfig,
  TaskRejection,
} from './define.ts'
export { type FailureReply, type Reply, type ReplyContent, reply } from './reply.ts'
