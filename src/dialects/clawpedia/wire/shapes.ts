import { type Static, Type } from '@sinclair/typebox'
import { enumOf, jsonObject } from '../../../schema/typebox.ts'

/** Clawpedia wire shapes (snake_case), as the protocol reference defines them, plus our extensions. */
export const ClawpediaStatus = enumOf([
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
])
export type ClawpediaStatus = Static<typeof ClawpediaStatus>

export const ClawpediaTask = Type.Object({
  task_id: Type.String(),
  agent_id: Type.String(),
  status: ClawpediaStatus,
  input: jsonObject(),
  output: Type.Optional(jsonObject()),
  prompt: Type.Optional(Type.String()),
  /** Our extension: the schema the answer must satisfy, while INPUT_REQUIRED. */
  input_schema: Type.Optional(jsonObject()),
  error: Type.Optional(
    Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(jsonObject()) }),
  ),
  /** Our extension: the agent's final message (COMPLETED, FAILED), as `{ message_id, text?, data? }`. */
  message: Type.Optional(jsonObject()),
  created_at: Type.String(),
  updated_at: Type.String(),
})
export type ClawpediaTask = Static<typeof ClawpediaTask>

export const ClawpediaArtifact = Type.Object({
  artifact_id: Type.String(),
  task_id: Type.String(),
  type: enumOf(['file', 'log', 'url', 'text', 'json']),
  content: Type.String(),
  metadata: Type.Object({
    created_at: Type.String(),
    filename: Type.Optional(Type.String()),
    mime_type: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
  }),
})
export type ClawpediaArtifact = Static<typeof ClawpediaArtifact>

/**
 * The data of an `artifact.update` stream frame. The reference's is `{ artifact_id }`, after which
 * a client fetches the artifact. A streamed artifact (ours) carries itself instead, so that a
 * client need not fetch once per piece: its opening frame holds the artifact as it opened
 * (`content` empty), each later one a piece to append (`append`, `content`), and `last_chunk`
 * marks the piece that completes it.
 */
export const ClawpediaArtifactUpdate = Type.Object({
  artifact_id: Type.String(),
  artifact: Type.Optional(ClawpediaArtifact),
  append: Type.Optional(Type.Boolean()),
  content: Type.Optional(Type.String()),
  last_chunk: Type.Optional(Type.Boolean()),
})
export type ClawpediaArtifactUpdate = Static<typeof ClawpediaArtifactUpdate>

/**
 * The AgentCard, exactly as the reference's JSON Schema (draft-07) defines it: agents are checked
 * against it at start-up, and clients check the cards they discover.
 */
export const ClawpediaCard = Type.Object(
  {
    protocol_version: Type.Literal('1.0'),
    agent_id: Type.String({ format: 'uuid' }),
    display_name: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 10 }),
    capabilities: Type.Array(Type.String()),
    input_schema: jsonObject({ minProperties: 1 }),
    output_schema: Type.Optional(jsonObject()),
    notification_config: Type.Optional(
      Type.Object({
        endpoint_url: Type.String({ format: 'uri' }),
        auth_header: Type.Optional(Type.String()),
      }),
    ),
  },
  { $schema: 'http://json-schema.org/draft-07/schema#', title: 'AgentCard' },
)
export type ClawpediaCard = Static<typeof ClawpediaCard>

/** The one notification type: the task, after a status change. */
export const STATUS_UPDATED = 'task.status.updated'

export interface ClawpediaNotification {
  event_type: typeof STATUS_UPDATED
  timestamp: string
  data: ClawpediaTask
}

/** The body of POST /tasks and of POST /tasks/{id}/input. */
export const CREATE_TASK_BODY = Type.Object({ input: jsonObject() })
export const PROVIDE_INPUT_BODY = CREATE_TASK_BODY
