/**
 * A retryable agent's run cut short by a server shutdown (SQLite) resumes when the server starts
 * again, and says so before the handler replays: a WORKING status whose agent message names the
 * new replica and the reason, on every dialect's stream (resumed with Last-Event-ID from where a
 * client left the old server), a `task.resumed` event on the run's span, and the resumes metric.
 * The replay writes nothing twice.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { defineAgent } from '../../src/agent/define.ts'
import { V } from '../a2a/helpers.ts'
import { grpcAddressOf, metadataOf, rawClient, requestOf, stream } from '../grpc/helpers.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'
import { parseExposition, sampleValue } from './prometheus-text.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()

let proceed!: () => void
const proceeding = new Promise<void>((resolve) => {
  proceed = resolve
})
const abortion = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))

/** Logs and publishes, then waits for the test (or its abort at shutdown), then logs again and ends. */
const resumableAgent = defineAgent({
  id: '7d1e2f3a-4b5c-4d6e-8f70-81a2b3c4d5e6',
  slug: 'resumable',
  name: 'Resumable',
  description: 'Retryable; waits mid-run, for resume tests.',
  inputSchema: { type: 'object' },
  retryable: true,
  async handler(_input, ctx) {
    await ctx.log('info', 'step 1')
    await ctx.artifact({ type: 'text', text: 'draft' })
    await Promise.race([proceeding, abortion(ctx.signal)])
    await ctx.log('info', 'step 2')
    return { done: true }
  },
})

const RESUMED = /^resumed on replica (\S+): the previous run stopped without finishing \(server restart\)$/
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-resume-'))
const servers: TestServer[] = []
const start = async (replicaId: string) => {
  const server = await startServer({ agents: [resumableAgent], dataDir, engine: { replicaId } })
  servers.push(server)
  return server
}
after(async () => {
  for (const server of servers) await server.close()
  await provider.shutdown()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a run cut short by a restart', () => {
  it('resumes with a WORKING status naming the replica on every stream, a span event and the metric', async () => {
    const first = await start('replica-before')
    const base1 = `${first.url}/agents/resumable`
    const taskId: string = (await request(`${base1}/tasks`, { body: { input: {} } })).body.task_id
    // A client follows the task on the old server up to the artifact, and then the server goes.
    const seen = await readSse(`${base1}/tasks/${taskId}/stream`, {
      stopWhen: (e) => e.event === 'artifact.update',
    })
    const cursor = seen.events.at(-1)!.id!
    servers.splice(servers.indexOf(first), 1)
    await first.close()

    const second = await start('replica-after')
    const base = `${second.url}/agents/resumable`
    // The resume is committed before the handler goes on: the task says so while it waits.
    const waiting = await eventually(async () => {
      const { body } = await request(`${base}/tasks/${taskId}`)
      return body.message ? body : undefined
    })
    assert.equal(waiting.status, 'WORKING')
    assert.equal(
      waiting.message.text,
      'resumed on replica replica-after: the previous run stopped without finishing (server restart)',
    )

    const resumeAt = { 'last-event-id': cursor }
    const grpc = rawClient(grpcAddressOf(second as never))
    const streams = Promise.all([
      readSse(`${base}/tasks/${taskId}/stream`, { headers: resumeAt }),
      readSse(`${base}/a2a/rest/tasks/${taskId}:subscribe`, { headers: { ...V, ...resumeAt } }),
      readSse(`${base}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { ...V, ...resumeAt, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
      }),
      readSse(`${base}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { ...resumeAt, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/resubscribe', params: { id: taskId } }),
      }),
      stream(
        grpc,
        'subscribeToTask',
        requestOf('subscribeToTask', { id: taskId, tenant: 'resumable' }),
        metadataOf(resumeAt),
      ),
    ])
    proceed()
    const [clawpedia, rest, jsonrpc, v03, viaGrpc] = await streams
    grpc.close()

    // Clawpedia: the status frame is the task, WORKING again, with the message (our extension field).
    const frames = clawpedia.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) }))
    assert.deepEqual(
      frames.map((f) => [f.event, f.data.status ?? f.data.message]),
      [
        ['status', 'WORKING'],
        ['log', 'step 2'],
        ['status', 'COMPLETED'],
      ],
    )
    assert.match(frames[0]!.data.message.text, RESUMED)

    // A2A 1.0, HTTP+JSON and JSON-RPC: a TaskStatusUpdateEvent whose status carries the message.
    const updates = [
      rest.events.map((e) => JSON.parse(e.data)),
      jsonrpc.events.map((e) => JSON.parse(e.data).result),
      viaGrpc.messages as { statusUpdate?: { status: { state: string; message?: never } } }[],
    ]
    for (const items of updates) {
      const first = items[0]!.statusUpdate.status
      assert.equal(first.state, 'TASK_STATE_WORKING')
      assert.match(first.message.parts[0].text, RESUMED)
      assert.deepEqual(first.message.metadata.switchboard, {
        kind: 'resumed',
        reason: 'restart',
        replica: 'replica-after',
      })
      assert.equal(items.at(-1)!.statusUpdate.status.state, 'TASK_STATE_COMPLETED')
    }

    // A2A 0.3: a status-update in the 0.3 spelling.
    const results = v03.events.map((e) => JSON.parse(e.data).result)
    assert.equal(results[0].kind, 'status-update')
    assert.equal(results[0].status.state, 'working')
    assert.match(results[0].status.message.parts[0].text, RESUMED)
    assert.equal(results.at(-1).status.state, 'completed')

    // The replay wrote nothing twice: one "step 1", one artifact.
    const whole = await readSse(`${base}/tasks/${taskId}/stream`)
    const logs = whole.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
    assert.deepEqual(logs, ['step 1', 'step 2'])
    assert.equal((await request(`${base}/tasks/${taskId}/artifacts`)).body.artifacts.length, 1)

    const runs = exporter.getFinishedSpans().filter((s) => s.name === 'handler.run')
    const resumed = runs.flatMap((s) => s.events.filter((e) => e.name === 'task.resumed'))
    assert.equal(runs.length, 2, 'the first run and the replay')
    assert.deepEqual(
      resumed.map((e) => e.attributes),
      [{ 'switchboard.resume.reason': 'restart', 'switchboard.replica': 'replica-after' }],
    )

    const metrics = parseExposition(await (await fetch(`${second.url}/metrics`)).text())
    assert.equal(sampleValue(metrics, 'switchboard_task_resumes_total', { reason: 'restart' }), 1)
    assert.equal(sampleValue(metrics, 'switchboard_lease_takeovers_total'), 1)
  })
})
