/**
 * How many times an A2A stream writes to its socket (dialects/a2a/stream.ts, OPENING_HOLD_TURNS):
 * the Task of a new task waits a few turns of the event loop for the run's first events, so a
 * task whose agent answers at once is one write, head to end of body, on both bindings; a task
 * whose agent takes its time still gets its Task at once.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { echoAgent, quietAgent, readSse, startA2a, type TestServer, V } from './helpers.ts'

let server: TestServer
let port = 0
before(async () => {
  server = await startA2a({ agents: [echoAgent, quietAgent] })
  port = Number(new URL(server.url).port)
})
after(() => server.close())

type WriteOf = (this: Socket, ...args: unknown[]) => unknown
const proto = Socket.prototype as unknown as { _write: WriteOf; _writev: WriteOf }

/** The writes of the server's sockets (those on its port) while `body` runs: one entry a write call. */
const serverWrites = async (body: () => Promise<void>): Promise<string[]> => {
  const writes: string[] = []
  const write = proto._write
  const writev = proto._writev
  proto._write = function (this: Socket, ...args: unknown[]) {
    if (this.localPort === port) writes.push(String(args[0]))
    return write.apply(this, args)
  }
  proto._writev = function (this: Socket, ...args: unknown[]) {
    if (this.localPort === port)
      writes.push((args[0] as { chunk: unknown }[]).map((c) => String(c.chunk)).join(''))
    return writev.apply(this, args)
  }
  try {
    await body()
  } finally {
    proto._write = write
    proto._writev = writev
  }
  return writes
}

const message = (data: unknown) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] },
})

const streams = {
  JSONRPC: (slug: string, data: unknown) =>
    readSse(`${server.base(slug)}/a2a/jsonrpc`, {
      body: { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: message(data) },
      headers: { ...V },
    }),
  'HTTP+JSON': (slug: string, data: unknown) =>
    readSse(`${server.base(slug)}/a2a/rest/message:stream`, {
      method: 'POST',
      body: message(data),
      headers: { ...V },
    }),
}

describe('the socket writes of an A2A stream', () => {
  for (const [binding, stream] of Object.entries(streams)) {
    it(`${binding}: a task whose agent answers at once is one write, from the head to the end of the body`, async () => {
      let events = 0
      const writes = await serverWrites(async () => {
        const read = await stream('echo', { say: 'hi' })
        assert.equal(read.status, 200)
        assert.ok(read.closedByServer)
        events = read.events.length
      })
      assert.ok(events >= 3, `the Task, the run's events and the completion (${events} events)`)
      assert.equal(writes.length, 1, `one write, not ${writes.length}: ${JSON.stringify(writes)}`)
      assert.match(writes[0]!, /^HTTP\/1\.1 200 OK\r\n[\s\S]*TASK_STATE_COMPLETED[\s\S]*\r\n0\r\n\r\n$/)
    })
  }

  it('a task whose agent takes its time gets its Task first, while it works', async () => {
    let taskId = ''
    const writes = await serverWrites(async () => {
      const read = await readSse(`${server.base('quiet')}/a2a/rest/message:stream`, {
        method: 'POST',
        body: message({}),
        headers: { ...V },
        stopWhen: () => true,
      })
      assert.equal(read.events.length, 1)
      const first = JSON.parse(read.events[0]!.data) as { task: { id: string; status: { state: string } } }
      assert.equal(first.task.status.state, 'TASK_STATE_SUBMITTED')
      taskId = first.task.id
    })
    assert.ok(writes.length >= 1)
    const cancel = await fetch(`${server.base('quiet')}/a2a/rest/tasks/${taskId}:cancel`, {
      method: 'POST',
      headers: { ...V },
    })
    assert.equal(cancel.status, 200)
  })
})
