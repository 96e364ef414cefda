/**
 * Two servers on one PostgreSQL database: the replica running a retryable agent's task stops
 * (its heartbeats end, its lease is expired as it goes) and the other takes the task over. The
 * status it commits first says `takeover` and names the replica that took it; the replay writes
 * nothing twice; the resumes metric counts it on the replica that resumed.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'
import { parseExposition, sampleValue } from './prometheus-text.ts'

let proceed!: () => void
const proceeding = new Promise<void>((resolve) => {
  proceed = resolve
})
const abortion = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))

const handoverAgent = defineAgent({
  id: '7d1e2f3a-4b5c-4d6e-8f70-81a2b3c4d5e7',
  slug: 'handover',
  name: 'Handover',
  description: 'Retryable; waits mid-run, for takeover tests.',
  inputSchema: { type: 'object' },
  retryable: true,
  async handler(_input, ctx) {
    await ctx.log('info', 'step 1')
    await ctx.artifact({ type: 'json', value: { draft: true } })
    await Promise.race([proceeding, abortion(ctx.signal)])
    await ctx.log('info', 'step 2')
    return { done: true }
  },
})

describe('a task taken over by another replica', { skip: pgSkip }, () => {
  let db: TestDatabase
  const servers: TestServer[] = []
  const start = async (replicaId: string) => {
    const server = await startServer({
      agents: [handoverAgent],
      store: db.url,
      engine: { replicaId, leaseMs: 2_000, pollMs: 50 },
    })
    servers.push(server)
    return server
  }
  before(async () => {
    db = await createTestDatabase('resume')
  })
  after(async () => {
    for (const server of servers) await server.close()
    await db?.drop()
  })

  it('announces the takeover with the new replica, once, before the replay goes on', async () => {
    const doomed = await start('replica-a')
    const survivor = await start('replica-b')
    const base = (server: TestServer) => `${server.url}/agents/handover`
    const taskId: string = (await request(`${base(doomed)}/tasks`, { body: { input: {} } })).body.task_id
    const seen = await readSse(`${base(survivor)}/tasks/${taskId}/stream`, {
      stopWhen: (e) => e.event === 'artifact.update',
    })
    const cursor = seen.events.at(-1)!.id!
    servers.splice(servers.indexOf(doomed), 1)
    await doomed.close()

    const waiting = await eventually(async () => {
      const { body } = await request(`${base(survivor)}/tasks/${taskId}`)
      return body.message ? body : undefined
    }, 10_000)
    assert.equal(waiting.status, 'WORKING')
    assert.equal(
      waiting.message.text,
      "resumed on replica replica-b: the previous run stopped without finishing (takeover: the previous replica's lease expired)",
    )
    const following = readSse(`${base(survivor)}/tasks/${taskId}/stream`, {
      headers: { 'last-event-id': cursor },
    })
    proceed()
    const frames = (await following).events.map((e) => ({ event: e.event, data: JSON.parse(e.data) }))
    assert.deepEqual(
      frames.map((f) => [f.event, f.data.status ?? f.data.message]),
      [
        ['status', 'WORKING'],
        ['log', 'step 2'],
        ['status', 'COMPLETED'],
      ],
    )

    const whole = await readSse(`${base(survivor)}/tasks/${taskId}/stream`)
    const logs = whole.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
    assert.deepEqual(logs, ['step 1', 'step 2'], 'the replay logged nothing twice')
    const artifacts = (await request(`${base(survivor)}/tasks/${taskId}/artifacts`)).body.artifacts
    assert.equal(artifacts.length, 1, 'the replay published nothing twice')

    const metrics = parseExposition(await (await fetch(`${survivor.url}/metrics`)).text())
    assert.equal(sampleValue(metrics, 'switchboard_task_resumes_total', { reason: 'takeover' }), 1)
    assert.equal(sampleValue(metrics, 'switchboard_task_resumes_total', { reason: 'restart' }), 0)
  })
})
