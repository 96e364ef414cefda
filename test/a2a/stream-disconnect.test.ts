/**
 * A SubscribeToTask client that goes away while the task is quiet: the server lets go of the
 * task's bus subscription when the socket closes, with no further event to wake the stream. The
 * stream holds no AbortSignal for this; the SSE writer ends its items (serveStream).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import type { TaskListener } from '../../src/events/contract.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { eventually } from '../helpers/server.ts'
import { readSse, rpc, startA2a, type TestServer, V } from './helpers.ts'

/** A LocalBus that counts the task subscriptions still open. */
class CountingBus extends LocalBus {
  open = 0
  override subscribe(taskId: string, listener: TaskListener): () => void {
    this.open++
    const unsubscribe = super.subscribe(taskId, listener)
    let done = false
    return () => {
      if (!done) this.open--
      done = true
      unsubscribe()
    }
  }
}

/** Works until cancelled, publishing nothing: a stream on it only ever sees the Task. */
const quietAgent = defineAgent({
  id: '3c0e5f7a-9b1d-4e2f-8a6c-5d4b3a2f1e0d',
  slug: 'quiet',
  name: 'Quiet',
  description: 'Holds until cancelled.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
    return undefined
  },
})

const bus = new CountingBus()
let server: TestServer
before(async () => {
  server = await startA2a({ agents: [quietAgent], bus })
})
after(() => server.close())

const held = async (): Promise<string> => {
  const started = await rpc(server.base('quiet'), 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
    configuration: { returnImmediately: true },
  })
  return started.body.result.task.id as string
}

describe('a subscriber that goes away from a quiet task', () => {
  for (const binding of ['JSON-RPC', 'HTTP+JSON'] as const) {
    it(`${binding}: the bus subscription is let go of when the socket closes`, async () => {
      const id = await held()
      const before = bus.open
      let during = -1
      const base = server.base('quiet')
      const stop = () => {
        during = bus.open
        return true
      }
      const stream =
        binding === 'JSON-RPC'
          ? await readSse(`${base}/a2a/jsonrpc`, {
              body: { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } },
              headers: { ...V },
              stopWhen: stop,
            })
          : await readSse(`${base}/a2a/rest/tasks/${id}:subscribe`, { headers: { ...V }, stopWhen: stop })
      assert.equal(stream.events.length, 1, 'the Task, and nothing after it')
      assert.equal(during, before + 1, 'the open stream follows the task')
      // Nothing more is published on the task: only the closed socket can end the stream.
      await eventually(
        async () => (bus.open === before ? true : undefined),
        10_000,
        'the subscription to end',
      )
      const cancelled = await rpc(base, 'CancelTask', { id })
      assert.equal(cancelled.body.result.status.state, 'TASK_STATE_CANCELED')
    })
  }
})
