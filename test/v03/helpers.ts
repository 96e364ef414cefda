import assert from 'node:assert/strict'
import { defineAgent } from '../../src/agent/define.ts'
import type { Agent } from '../../src/client.ts'
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

/** An agent with an extended card: members see the "members" skill beside the public one. */
export const vipAgent = defineAgent({
  id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
  slug: 'vip',
  name: 'VIP',
  description: 'Shows members more than the public.',
  skills: [{ id: 'public', name: 'Public', description: 'For everyone.', tags: ['public'] }],
  extendedCard: {
    skills: [{ id: 'members', name: 'Members only', description: 'For members.', tags: ['members'] }],
  },
  inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
})

/**
 * Our report builder's multi-turn task through `agent` (reached over a 0.3 interface): it asks,
 * with its answer schema, which must survive the 0.3 round trip (message metadata); the answer
 * completes it with the report.
 */
export const runReportBuilder = async (agent: Agent) => {
  const handle = await agent.send({ subject: 'tides' })
  const asked = await handle.wait({ timeoutMs: 10_000 })
  assert.equal(asked.state, 'INPUT_REQUIRED')
  assert.ok(asked.inputSchema, 'the answer schema survives the 0.3 round trip (message metadata)')
  await handle.provideInput({ sections: ['Moon', 'Sun'] })
  const done = await handle.wait({ timeoutMs: 10_000 })
  assert.equal(done.state, 'COMPLETED')
  assert.deepEqual(done.output, { title: 'Report: tides', sections: ['Moon', 'Sun'] })
  return { id: handle.id, done }
}
