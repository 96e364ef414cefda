import assert from 'node:assert/strict'
import { validateV03 } from '../helpers/a2a-v03-schema.ts'

/** The 0.3 schema's definition of each stream event, by its `kind`. */
const EVENT_TYPES: Record<string, string> = {
  task: 'Task',
  message: 'Message',
  'status-update': 'TaskStatusUpdateEvent',
  'artifact-update': 'TaskArtifactUpdateEvent',
}

/**
 * Asserts `value` is valid as the named 0.3.0 JSON Schema definition; `StreamEvent` picks the
 * definition by the event's `kind`.
 */
export const checkV03 = (typeName: string, value: unknown): void => {
  const name =
    typeName === 'StreamEvent' ? (EVENT_TYPES[(value as { kind?: string }).kind ?? ''] ?? 'Task') : typeName
  assert.deepEqual(validateV03(name, value), [], `a valid 0.3 ${name}: ${JSON.stringify(value)}`)
}
