/**
 * gRPC streams: every update that ends an event carries its sequence (metadata
 * `switchboard.eventSeq`), the initial metadata the snapshot's (`switchboard-event-seq`); a
 * stream the client cuts is resumed with `last-event-id` with nothing lost or repeated; a deadline
 * ends a stream.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { JsonValue } from '@bufbuild/protobuf'
import { type Client, Metadata, status } from '@grpc/grpc-js'
import { EVENT_SEQ_KEY, GRPC_METADATA } from '../../src/dialects/a2a/wire/grpc-service.ts'
import type { TaskListener } from '../../src/events/contract.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { eventually, startA2a, type TestServer } from '../a2a/helpers.ts'
import { callAny, grpcAddressOf, metadataOf, rawClient, requestOf, stream, unary } from './helpers.ts'

/** A bus that counts its open subscriptions: a stream that ended must leave none behind. */
class CountingBus extends LocalBus {
  open = 0
  override subscribe(taskId: string, listener: TaskListener): () => void {
    this.open += 1
    const unsubscribe = super.subscribe(taskId, listener)
    let done = false
    return () => {
      if (!done) this.open -= 1
      done = true
      unsubscribe()
    }
  }
}

const bus = new CountingBus()
let server: TestServer
let client: Client
before(async () => {
  server = await startA2a({ bus })
  client = rawClient(grpcAddressOf(server))
})
after(async () => {
  client.close()
  await server.close()
})

type Update = { metadata?: Record<string, unknown>; status?: { state: string } }
type Item = { task?: { id: string }; statusUpdate?: Update; artifactUpdate?: Update }

const seqOf = (item: JsonValue): number | undefined => {
  const { statusUpdate, artifactUpdate } = item as Item
  const seq = (statusUpdate ?? artifactUpdate)?.metadata?.[EVENT_SEQ_KEY]
  return typeof seq === 'number' ? seq : undefined
}

const startRunner = async (steps: number, stepMs: number): Promise<string> => {
  const { response, error } = await callAny(client, 'sendMessage', {
    tenant: 'long-runner',
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { steps, step_ms: stepMs } }] },
    configuration: { returnImmediately: true },
  })
  assert.equal(error, undefined)
  return (response as { task: { id: string } }).task.id
}

const subscribe = (id: string, metadata = new Metadata()) => ({
  request: requestOf('subscribeToTask', { tenant: 'long-runner', id }),
  metadata,
})

describe('gRPC streams', () => {
  it('a stream cut by the client resumes with last-event-id: nothing lost, nothing repeated', async () => {
    const id = await startRunner(8, 60)
    const before = bus.open
    const first = subscribe(id)
    let cutAt: number | undefined
    let sequenced = 0
    const cut = await stream(client, 'subscribeToTask', first.request, first.metadata, {}, (item, call) => {
      const seq = seqOf(item)
      if (seq === undefined || cutAt !== undefined) return
      // Cut after the third sequenced update: the client holds everything up to `seq`.
      sequenced += 1
      if (sequenced < 3) return
      cutAt = seq
      call.cancel()
    })
    assert.equal(cut.error?.code, status.CANCELLED)
    await eventually(
      async () => (bus.open <= before ? true : undefined),
      'the cut stream’s subscription to close',
    )
    assert.ok(cutAt !== undefined, 'cut after a sequenced update')
    const snapshotSeq = Number(cut.initial?.get(GRPC_METADATA.eventSeq)[0])
    assert.ok(Number.isSafeInteger(snapshotSeq), 'the initial metadata names the snapshot’s sequence')
    assert.ok('task' in (cut.messages[0] as Item), 'a subscription starts with the Task')
    const held = cut.messages.slice(0, cut.messages.findIndex((m) => seqOf(m) === cutAt) + 1)

    const resumed = await stream(
      client,
      'subscribeToTask',
      subscribe(id).request,
      metadataOf({ [GRPC_METADATA.lastEventId]: String(cutAt) }),
    )
    assert.equal(resumed.error, undefined, resumed.error?.details)
    assert.ok(!resumed.messages.some((m) => 'task' in (m as Item)), 'a resumed stream has no snapshot')
    assert.equal(resumed.initial?.get(GRPC_METADATA.eventSeq).length, 0)
    const last = resumed.messages.at(-1) as Item
    assert.equal(last.statusUpdate?.status?.state, 'TASK_STATE_COMPLETED')

    // The whole story, replayed after the snapshot once the task is done: the cut stream's updates
    // and the resumed ones are exactly it, in order.
    const replay = await stream(
      client,
      'subscribeToTask',
      subscribe(id).request,
      metadataOf({ [GRPC_METADATA.lastEventId]: String(snapshotSeq) }),
    )
    assert.deepEqual([...held.slice(1), ...resumed.messages], replay.messages)
    const seqs = replay.messages.map(seqOf).filter((s) => s !== undefined)
    assert.deepEqual(
      seqs,
      [...new Set(seqs)].sort((a, b) => a - b),
      'ascending, each once',
    )
    assert.ok(seqs[0]! > snapshotSeq)
  })

  it('every update that ends an event carries its sequence; SendStreamingMessage names the snapshot’s', async () => {
    const result = await stream(
      client,
      'sendStreamingMessage',
      requestOf('sendStreamingMessage', {
        tenant: 'long-runner',
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { steps: 3, step_ms: 5 } }] },
      }),
    )
    assert.equal(result.error, undefined)
    const [first, ...updates] = result.messages as Item[]
    assert.ok(first?.task, 'the Task first')
    assert.ok(Number.isSafeInteger(Number(result.initial?.get(GRPC_METADATA.eventSeq)[0])))
    for (const update of updates.filter((u) => u.statusUpdate))
      assert.equal(typeof seqOf(update as JsonValue), 'number', JSON.stringify(update))
  })

  it('a deadline ends a blocking SendMessage with DEADLINE_EXCEEDED: its wait is freed, the task runs on', async () => {
    const before = bus.open
    const request = requestOf('sendMessage', {
      tenant: 'long-runner',
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { steps: 1000, step_ms: 20 } }],
      },
    })
    const result = await unary(client, 'sendMessage', request, new Metadata(), { deadline: Date.now() + 300 })
    assert.equal(result.error?.code, status.DEADLINE_EXCEEDED)
    // What stays open is the run's own subscription (it hears a cancel): one, not the wait's too.
    await eventually(
      async () => (bus.open <= before + 1 ? true : undefined),
      'the wait to end at the deadline',
    )
    const { response } = await callAny(client, 'listTasks', {
      tenant: 'long-runner',
      status: 'TASK_STATE_WORKING',
    })
    const running = (response as { tasks: { id: string }[] }).tasks
    assert.ok(running.length > 0, 'the task runs on')
    for (const { id } of running) await callAny(client, 'cancelTask', { tenant: 'long-runner', id })
    await eventually(async () => (bus.open <= before ? true : undefined), 'the run to end')
  })

  it('a deadline ends a stream with DEADLINE_EXCEEDED; the task runs on', async () => {
    const id = await startRunner(1000, 20)
    const before = bus.open
    const { request, metadata } = subscribe(id)
    const result = await stream(client, 'subscribeToTask', request, metadata, { deadline: Date.now() + 300 })
    assert.equal(result.error?.code, status.DEADLINE_EXCEEDED)
    assert.ok(result.messages.length >= 1, 'the stream had started')
    await eventually(
      async () => (bus.open <= before ? true : undefined),
      'the subscription to close at the deadline',
    )
    const { response } = await callAny(client, 'getTask', { tenant: 'long-runner', id })
    assert.equal((response as { status: { state: string } }).status.state, 'TASK_STATE_WORKING')
    await callAny(client, 'cancelTask', { tenant: 'long-runner', id })
  })
})
