/**
 * Streamed artifacts on A2A, on both bindings: the opening, one `append` update per piece and the
 * `lastChunk`, each with its own SSE id; the Task shows the text so far as one part; a subscription
 * resumed with Last-Event-ID in the middle of the artifact misses nothing and repeats nothing;
 * webhooks get the opening and the whole; the official @a2a-js/sdk client reassembles the same text.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SendMessageRequest, type StreamResponse } from '@a2a-js/sdk'
import { chunkAgents, hold, release, TOKENS } from '../fixtures/chunk-agents.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import {
  BINDINGS,
  type Binding,
  eventually,
  readSse,
  rest,
  rpc,
  type SseEvent,
  sdkClient,
  startA2a,
  startReceiver,
  type TestServer,
  V,
} from './helpers.ts'

let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  server = await startA2a({ agents: chunkAgents })
  receiver = await startReceiver()
})
after(async () => {
  await server.close()
  await receiver.close()
})

const base = () => server.base('teller')
const FULL = TOKENS.join('')

const message = (data: object) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] })

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
type Wire = any

/** The binding's streaming send, and its subscription (with Last-Event-ID when given). */
const streamOf = (binding: Binding) => ({
  send: (params: object, stopWhen?: (event: SseEvent) => boolean) =>
    binding === 'JSONRPC'
      ? readSse(`${base()}/a2a/jsonrpc`, {
          body: { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params },
          headers: { ...V },
          ...(stopWhen && { stopWhen }),
        })
      : readSse(`${base()}/a2a/rest/message:stream`, {
          body: params,
          headers: { ...V },
          ...(stopWhen && { stopWhen }),
        }),
  subscribe: (taskId: string, lastEventId: string) =>
    binding === 'JSONRPC'
      ? readSse(`${base()}/a2a/jsonrpc`, {
          body: { jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } },
          headers: { ...V, 'last-event-id': lastEventId },
        })
      : readSse(`${base()}/a2a/rest/tasks/${taskId}:subscribe`, {
          method: 'POST',
          headers: { ...V, 'last-event-id': lastEventId },
        }),
  /** The StreamResponse of an SSE event. */
  response: (event: SseEvent): Wire => {
    const parsed = JSON.parse(event.data)
    return binding === 'JSONRPC' ? parsed.result : parsed
  },
  getTask: async (id: string): Promise<Wire> =>
    binding === 'JSONRPC'
      ? (await rpc(base(), 'GetTask', { id })).body.result
      : (await rest(base(), `/tasks/${id}`)).body,
})

/** The artifact updates of one artifact, with their SSE ids. */
const updatesOf = (
  events: SseEvent[],
  response: (event: SseEvent) => Wire,
  name = 'story',
): { id: string | undefined; update: Wire }[] =>
  events
    .map((event) => ({ id: event.id, update: response(event).artifactUpdate }))
    .filter(({ update }) => update?.artifact.name === name)

/** What A2A says a client does: `append` adds the update's parts, else the artifact is replaced. */
const assemble = (updates: Wire[]): string => {
  let parts: Wire[] = []
  for (const update of updates)
    parts = update.append ? [...parts, ...update.artifact.parts] : update.artifact.parts
  return parts.map((p: Wire) => p.text).join('')
}

for (const binding of BINDINGS) {
  describe(`streamed artifacts over ${binding}`, () => {
    const wire = streamOf(binding)

    it('stream as an opening, one append per piece and a lastChunk, each with its own id', async () => {
      const stream = await wire.send({ message: message({}) })
      assert.ok(stream.closedByServer)
      for (const event of stream.events) checkA2a('StreamResponse', wire.response(event))
      const story = updatesOf(stream.events, wire.response)
      assert.equal(story.length, 1 + TOKENS.length + 1)
      const [opening, ...pieces] = story.map((s) => s.update)
      assert.deepEqual(opening.artifact.parts, [{ text: '', mediaType: 'text/markdown' }])
      assert.equal(opening.append, undefined)
      assert.equal(opening.lastChunk, undefined, 'the opening is not the last chunk')
      assert.deepEqual(
        pieces.map((p) => p.artifact.parts),
        [...TOKENS, ''].map((text) => [{ text, mediaType: 'text/markdown' }]),
      )
      assert.ok(
        pieces.every((p) => p.append === true && p.artifact.artifactId === opening.artifact.artifactId),
      )
      assert.deepEqual(
        pieces.map((p) => p.lastChunk === true),
        [...TOKENS.map(() => false), true],
      )
      const ids = story.map((s) => Number(s.id))
      assert.deepEqual(
        ids,
        ids.map((_, i) => ids[0]! + i),
        'every piece is an event of its own, in order',
      )
      assert.equal(assemble(story.map((s) => s.update)), FULL)
      const task = await wire.getTask(wire.response(stream.events[0]!).task.id)
      checkA2a('Task', task)
      const whole = task.artifacts.find((a: Wire) => a.name === 'story')
      assert.deepEqual(
        whole.parts,
        [{ text: FULL, mediaType: 'text/markdown' }],
        'GetTask: the whole text, one part',
      )
    })

    it('resume with Last-Event-ID in the middle of the artifact: nothing lost, nothing twice', async () => {
      const gate = `resume-${binding}-${randomUUID()}`
      hold(gate)
      // The task stops after three pieces until the gate opens; the first stream stops reading there.
      const first = await wire.send({ message: message({ hold: gate, hold_after: 3 }) }, (event) => {
        const update = JSON.parse(event.data)
        const piece = (update.result ?? update).artifactUpdate
        return piece?.append === true && piece.artifact.parts[0].text === TOKENS[2]
      })
      const taskId = wire.response(first.events[0]!).task.id
      const seen = updatesOf(first.events, wire.response)
      const lastId = first.events.at(-1)!.id!
      const resumed = wire.subscribe(taskId, lastId)
      release(gate)
      const rest = await resumed
      assert.ok(rest.closedByServer)
      const ids = rest.events.map((e) => e.id).filter((id) => id !== undefined)
      assert.equal(Number(ids[0]), Number(lastId) + 1, 'the first event after the cursor')
      assert.equal(new Set(ids).size, ids.length)
      const after = updatesOf(rest.events, wire.response)
      assert.equal(wire.response(rest.events[0]!).task, undefined, 'no snapshot on a resume')
      assert.equal(assemble([...seen, ...after].map((s) => s.update)), FULL)
      assert.equal(after.at(-1)?.update.lastChunk, true)
    })
  })
}

describe('streamed artifacts in webhooks', () => {
  it('arrive as the opening and then the whole artifact, not a request per piece', async () => {
    const sent = await rpc(base(), 'SendMessage', {
      message: message({}),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url } },
    })
    const taskId = sent.body.result.task.id
    const bodies = () =>
      receiver.received
        .map((r) => JSON.parse(r.body))
        .filter((b) => (b.statusUpdate ?? b.artifactUpdate)?.taskId === taskId)
    await eventually(
      async () =>
        bodies().some((b) => b.statusUpdate?.status.state === 'TASK_STATE_COMPLETED') ? true : undefined,
      'the completion webhook',
      20_000,
    )
    const story = bodies()
      .map((b) => b.artifactUpdate)
      .filter((u) => u?.artifact.name === 'story')
    for (const update of story) checkA2a('TaskArtifactUpdateEvent', update)
    assert.equal(story.length, 2)
    assert.deepEqual(story[0].artifact.parts, [{ text: '', mediaType: 'text/markdown' }])
    assert.equal(story[0].lastChunk, undefined)
    assert.deepEqual(story[1].artifact.parts, [{ text: FULL, mediaType: 'text/markdown' }])
    assert.equal(story[1].lastChunk, true)
    assert.equal(story[1].append, undefined, 'the whole artifact replaces the empty one')
  })
})

for (const binding of BINDINGS) {
  describe(`@a2a-js/sdk over ${binding} reads streamed artifacts`, () => {
    it('assembles the pieces by append and lastChunk into the text GetTask shows', async () => {
      const client = await sdkClient(base(), binding)
      const events: StreamResponse[] = []
      for await (const event of client.sendMessageStream(
        SendMessageRequest.fromJSON({ message: message({}) }),
      ))
        events.push(event)
      const updates = events
        .map((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value : undefined))
        .filter((u) => u?.artifact?.name === 'story')
      assert.equal(updates.length, TOKENS.length + 2)
      // As the SDK's own task store does: append adds the parts, otherwise the artifact is replaced.
      let parts: string[] = []
      for (const update of updates) {
        const texts = (update!.artifact?.parts ?? []).map((p) =>
          p.content?.$case === 'text' ? p.content.value : '',
        )
        parts = update!.append ? [...parts, ...texts] : texts
      }
      assert.equal(parts.join(''), FULL)
      assert.equal(updates.at(-1)?.lastChunk, true)
      assert.ok(updates.slice(0, -1).every((u) => !u!.lastChunk))
      const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : ''
      const task = await client.getTask({ tenant: '', id: taskId })
      const whole = task.artifacts.find((a) => a.name === 'story')
      const content = whole?.parts[0]?.content
      assert.equal(content?.$case === 'text' && content.value, FULL)
    })
  })
}
