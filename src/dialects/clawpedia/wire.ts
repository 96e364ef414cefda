/** Clawpedia wire shapes (snake_case), as the protocol reference defines them. */
export type ClawpediaStatus =
  | 'SUBMITTED'
  | 'WORKING'
  | 'INPUT_REQUIRED'
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELLED'

export interface ClawpediaTask {
  task_id: string
  agent_id: string
  status: ClawpediaStatus
  input: Record<string, unknown>
  output?: Record<string, unknown>
  prompt?: string
  /** Our extension: the schema the answer must satisfy, while INPUT_REQUIRED. */
  input_schema?: Record<string, unknown>
  error?: { code: string; message: string; details?: Record<string, unknown> }
  created_at: string
  updated_at: string
}

export interface ClawpediaArtifact {
  artifact_id: string
  task_id: string
  type: 'file' | 'log' | 'url' | 'text' | 'json'
  content: string
  metadata: {
    created_at: string
    filename?: string
    mime_type?: string
    description?: string
  }
}

export interface ClawpediaCard {
  protocol_version: '1.0'
  agent_id: string
  display_name: string
  description: string
  capabilities: string[]
  input_schema: Record<string, unknown>
  output_schema?: Record<string, unknown>
  notification_config?: { endpoint_url: string; auth_header?: string }
}

export interface ClawpediaNotification {
  event_type: 'task.status.updated'
  timestamp: string
  data: ClawpediaTask
}

/** Request bodies, as JSON Schemas compiled once at start-up. */
export const CREATE_TASK_BODY = {
  type: 'object',
  properties: { input: { type: 'object' } },
  required: ['input'],
} as const

export const PROVIDE_INPUT_BODY = CREATE_TASK_BODY
