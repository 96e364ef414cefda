/**
 * A2A streams on the wire: SSE framing on both bindings, `id:` = event sequence, log lines as
 * status updates, close at terminal and after INPUT_REQUIRED, exact replay after Last-Event-ID,
 * plain errors before the first event, heartbeats.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { readSse, rpc, type SseEvent, startA2a, type TestServer, V } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ pingMs: 40 })
})
after(() => server.close())

const send = (parts: unknown[], extra: object = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra },
})

const restStream = (base: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  readSse(`${base}/a2a/rest${path}`, { method: 'POST', body, headers: { ...V, ...headers } })

const rpcStream = (
  base: string,
  method: string,
  params: unknown,
  id: number,
  headers: Record<string, string> = {},
) =>
  readSse(`${base}/a2a/jsonrpc`, {
    body: { jsonrpc: '2.0', id, method, params },
    headers: { ...V, ...headers },
  })

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
const payloads = (events: SseEvent[]): any[] => events.map((e) => JSON.parse(e.data))

const stateOf = (response: {
  statusUpdate?: { status: { state: string } }
  task?: { status: { state: string } }
}) => response.statusUpdate?.status.state ?? response.task?.status.state

describe('A2A streams', () => {
  it('REST message:stream: bare StreamResponses, Task first, ids ascending, closes at completion', async () => {
    const stream = await restStream(
      server.base('echo'),
      '/message:stream',
      send([{ data: { artifacts: true } }]),
    )
    assert.equal(stream.status, 200)
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/)
    assert.ok(stream.closedByServer)
    const responses = payloads(stream.events)
    for (const response of responses) checkA2a('StreamResponse', response)
    assert.ok(responses[0].task, 'the first event is the Task')
    assert.equal(responses.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED')
    const ids = stream.events.flatMap((e) => (e.id === undefined ? [] : [Number(e.id)]))
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'ids follow the event sequence',
    )
    assert.equal(new Set(ids).size, ids.length)
    assert.equal(Number(stream.events[0]!.id), 2, 'the snapshot carries the version it was read at')
    const log = responses.find((r) => r.statusUpdate?.status.message?.metadata?.switchboard?.kind === 'log')
    assert.deepEqual(log.statusUpdate.status.message.parts, [{ text: 'echoing' }])
    assert.equal(log.statusUpdate.status.message.metadata.switchboard.level, 'INFO')
    assert.equal(log.statusUpdate.status.message.role, 'ROLE_AGENT')
    assert.equal(log.statusUpdate.status.state, 'TASK_STATE_WORKING')
    const output = responses.findIndex((r) => r.artifactUpdate?.artifact.name === 'output')
    assert.equal(output, responses.length - 2, 'the output artifact comes just before the completion')
    assert.equal(stream.events[output]!.id, undefined, 'and carries no id of its own')
  })

  it('JSON-RPC SendStreamingMessage: every event is a JSON-RPC response with the request id', async () => {
    const stream = await rpcStream(server.base('echo'), 'SendStreamingMessage', send([{ text: 'hi' }]), 41)
    assert.ok(stream.events.length >= 3)
    for (const envelope of payloads(stream.events)) {
      assert.equal(envelope.jsonrpc, '2.0')
      assert.equal(envelope.id, 41)
      checkA2a('StreamResponse', envelope.result)
    }
    assert.equal(stateOf(payloads(stream.events).at(-1).result), 'TASK_STATE_COMPLETED')
  })

  it('closes right after INPUT_REQUIRED, with the question as the status message', async () => {
    for (const binding of ['rest', 'jsonrpc'] as const) {
      const body = send([{ text: 'bats' }])
      const stream =
        binding === 'rest'
          ? await restStream(server.base('report-builder'), '/message:stream', body)
          : await rpcStream(server.base('report-builder'), 'SendStreamingMessage', body, 1)
      assert.ok(stream.closedByServer)
      const last = payloads(stream.events)
        .map((p) => (binding === 'rest' ? p : p.result))
        .at(-1)
      assert.equal(last.statusUpdate.status.state, 'TASK_STATE_INPUT_REQUIRED')
      assert.match(last.statusUpdate.status.message.parts[0].text, /sections/)
      assert.deepEqual(last.statusUpdate.status.message.metadata.switchboard.inputSchema.anyOf[0], {
        required: ['sections'],
      })
    }
  })

  it('a streamed follow-up answers the question and streams on to completion', async () => {
    const base = server.base('report-builder')
    const first = payloads((await restStream(base, '/message:stream', send([{ text: 'moths' }]))).events)
    const taskId = first[0].task.id
    const second = await restStream(
      base,
      '/message:stream',
      send([{ data: { sections: ['Wings'] } }], { taskId }),
    )
    const responses = payloads(second.events)
    assert.equal(responses[0].task.id, taskId)
    assert.equal(responses[0].task.status.state, 'TASK_STATE_WORKING')
    assert.equal(responses.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED')
  })

  it('SubscribeToTask with Last-Event-ID replays exactly the missed events, on every route', async () => {
    const base = server.base('echo')
    const original = await restStream(base, '/message:stream', send([{ data: { artifacts: true } }]))
    const taskId = payloads(original.events)[0].task.id
    const withIds = original.events.filter((e) => e.id !== undefined)
    const resumeAt = withIds[3]!.id!
    const expected = original.events.slice(original.events.indexOf(withIds[3]!) + 1)
    const routes = [
      () =>
        readSse(`${base}/a2a/rest/tasks/${taskId}:subscribe`, {
          headers: { ...V, 'last-event-id': resumeAt },
        }),
      () => restStream(base, `/tasks/${taskId}:subscribe`, undefined, { 'last-event-id': resumeAt }),
      () => rpcStream(base, 'SubscribeToTask', { id: taskId }, 9, { 'last-event-id': resumeAt }),
    ]
    for (const [i, open] of routes.entries()) {
      const replay = await open()
      assert.ok(replay.closedByServer)
      const data =
        i === 2
          ? payloads(replay.events).map((p) => JSON.stringify(p.result))
          : replay.events.map((e) => e.data)
      assert.deepEqual(
        data,
        expected.map((e) => e.data),
        `route ${i} replays the missed events, no snapshot`,
      )
      assert.deepEqual(
        replay.events.map((e) => e.id),
        expected.map((e) => e.id),
      )
    }
    const nothing = await restStream(base, `/tasks/${taskId}:subscribe`, undefined, {
      'last-event-id': '9999',
    })
    assert.deepEqual(nothing.events, [])
  })

  it('concurrent subscribers see the same events in the same order', async () => {
    const base = server.base('long-runner')
    const started = await rpc(base, 'SendMessage', {
      ...send([{ data: { steps: 6, step_ms: 50 } }]),
      configuration: { returnImmediately: true },
    })
    const id = started.body.result.task.id
    const [a, b] = await Promise.all([
      restStream(base, `/tasks/${id}:subscribe`),
      readSse(`${base}/a2a/rest/tasks/${id}:subscribe`, { headers: { ...V } }),
    ])
    const tail = (events: SseEvent[]) =>
      events.slice(1).filter((e) => Number(e.id) > Math.max(Number(a.events[0]!.id), Number(b.events[0]!.id)))
    assert.ok(tail(a.events).length > 0)
    assert.deepEqual(tail(a.events), tail(b.events))
    assert.equal(payloads(a.events).at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED')
  })

  it('errors before the first event are plain responses, not streams', async () => {
    const restError = await restStream(server.base('echo'), `/tasks/${randomUUID()}:subscribe`)
    assert.equal(restError.status, 404)
    assert.equal(restError.body.error.details[0].reason, 'TASK_NOT_FOUND')
    const rpcError = await rpcStream(
      server.base('echo'),
      'SendStreamingMessage',
      { message: { messageId: 'x' } },
      5,
    )
    assert.equal(rpcError.status, 200)
    assert.equal(rpcError.body.error.code, -32602)
    assert.equal(rpcError.body.id, 5)
    const badResume = await restStream(server.base('echo'), `/tasks/${randomUUID()}:subscribe`, undefined, {
      'last-event-id': 'x',
    })
    assert.equal(badResume.status, 400)
  })

  it('idle streams get `: ping` comments', async () => {
    const base = server.base('long-runner')
    const started = await rpc(base, 'SendMessage', {
      ...send([{ data: { steps: 2, step_ms: 150 } }]),
      configuration: { returnImmediately: true },
    })
    const stream = await restStream(base, `/tasks/${started.body.result.task.id}:subscribe`)
    assert.match(stream.raw, /^: ping$/m)
    assert.equal(payloads(stream.events).at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED')
  })
})
