import { ClawpediaCard } from '../../src/dialects/clawpedia/wire/shapes.ts'
import { compileSchema } from '../../src/schema/json-schema.ts'

/** The reference's Task and Artifact interfaces, written as JSON Schemas to check what we serve. */
const TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$'

export const TASK_SCHEMA = {
  type: 'object',
  properties: {
    task_id: { type: 'string', format: 'uuid' },
    agent_id: { type: 'string', format: 'uuid' },
    status: { enum: ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELLED'] },
    input: { type: 'object' },
    output: { type: 'object' },
    prompt: { type: 'string' },
    error: {
      type: 'object',
      properties: { code: { type: 'string', minLength: 1 }, message: { type: 'string', minLength: 1 } },
      required: ['code', 'message'],
    },
    created_at: { type: 'string', pattern: TIMESTAMP },
    updated_at: { type: 'string', pattern: TIMESTAMP },
  },
  required: ['task_id', 'agent_id', 'status', 'input', 'created_at', 'updated_at'],
  // "status X implies field F", written as (not X) or F.
  allOf: [
    ['COMPLETED', 'output'],
    ['FAILED', 'error'],
    ['INPUT_REQUIRED', 'prompt'],
  ].map(([status, field]) => ({
    anyOf: [{ properties: { status: { not: { const: status } } } }, { required: [field] }],
  })),
}

export const ARTIFACT_SCHEMA = {
  type: 'object',
  properties: {
    artifact_id: { type: 'string', format: 'uuid' },
    task_id: { type: 'string', format: 'uuid' },
    type: { enum: ['file', 'log', 'url', 'text', 'json'] },
    content: { type: 'string' },
    metadata: {
      type: 'object',
      properties: {
        created_at: { type: 'string', pattern: TIMESTAMP },
        filename: { type: 'string', minLength: 1 },
        mime_type: { type: 'string', minLength: 1 },
        description: { type: 'string' },
      },
      required: ['created_at'],
    },
  },
  required: ['artifact_id', 'task_id', 'type', 'content', 'metadata'],
  // "a file artifact has a URI as content, a filename and a media type", written as (not file) or that.
  anyOf: [
    { properties: { type: { not: { const: 'file' } } } },
    {
      properties: {
        content: { format: 'uri' },
        metadata: { required: ['created_at', 'filename', 'mime_type'] },
      },
    },
  ],
}

export const TIMESTAMP_PATTERN = new RegExp(TIMESTAMP)
export const validateClawpediaTask = compileSchema(TASK_SCHEMA)
export const validateClawpediaArtifact = compileSchema(ARTIFACT_SCHEMA)
export const validateClawpediaCard = compileSchema(ClawpediaCard)
