/**
 * A client that goes away while its task is quiet: the server lets go of the task's bus
 * subscription when the socket closes, with no further event to wake it. A SubscribeToTask stream
 * holds no signal for this (the SSE writer ends its items: serveStream); a blocking SendMessage
 * waits on the response's disconnect signal (web/sse.ts).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import type { TaskListener } from '../../src/events/contract.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { eventually } from '../helpers/server.ts'
import { quietAgent, readSse, rpc, startA2a, type TestServer, V } from './helpers.ts'

/** A LocalBus that counts the task subscriptions still open, in all and per task. */
class CountingBus extends LocalBus {
  open = 0
  readonly #perTask = new Map<string, number>()
  openOn(taskId: string): number {
    return this.#perTask.get(taskId) ?? 0
  }
  override subscribe(taskId: string, listener: TaskListener): () => void {
    this.open++
    this.#perTask.set(taskId, this.openOn(taskId) + 1)
    const unsubscribe = super.subscribe(taskId, listener)
    let done = false
    return () => {
      if (!done) {
        this.open--
        this.#perTask.set(taskId, this.openOn(taskId) - 1)
      }
      done = true
      unsubscribe()
    }
  }
}

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

/** A blocking SendMessage on the quiet agent, sent raw so that its socket can be cut. */
const blockingSend = (base: string, binding: 'JSON-RPC' | 'HTTP+JSON', contextId: string) => {
  const message = { messageId: randomUUID(), contextId, role: 'ROLE_USER', parts: [{ data: {} }] }
  const [path, body] =
    binding === 'JSON-RPC'
      ? ['/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }]
      : ['/a2a/rest/message:send', { message }]
  const req = httpRequest(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V },
  })
  req.on('error', () => {})
  req.end(JSON.stringify(body))
  return req
}

describe('a blocking SendMessage whose client goes away', () => {
  for (const binding of ['JSON-RPC', 'HTTP+JSON'] as const) {
    it(`${binding}: the wait lets go of the task's subscription when the socket closes`, async () => {
      const base = server.base('quiet')
      const contextId = randomUUID()
      const req = blockingSend(base, binding, contextId)
      const id = await eventually(
        async () => {
          const listed = await rpc(base, 'ListTasks', { contextId })
          const task = listed.body.result.tasks[0]
          return task?.status.state === 'TASK_STATE_WORKING' ? (task.id as string) : undefined
        },
        10_000,
        'the task to start',
      )
      // Two subscriptions to the task: the send's watch (its wait listens through it) and the run's.
      const open = (count: number) => async () => (bus.openOn(id) === count ? true : undefined)
      await eventually(open(2), 10_000, 'the wait and the run to listen')
      req.destroy()
      // The task stays quiet: only the closed socket can end the wait; the run holds its own.
      await eventually(open(1), 10_000, 'the wait to let go')
      const cancelled = await rpc(base, 'CancelTask', { id })
      assert.equal(cancelled.body.result.status.state, 'TASK_STATE_CANCELED')
      await eventually(open(0), 10_000, 'the run to end')
    })
  }
})
