/**
 * What an open stream holds while its task is quiet: no promise. The stream writer is the waker
 * the task's follower keeps (engine/pull.ts), so ten thousand waiting subscribers are ten
 * thousand small objects, not ten thousand promise chains (bench/HISTORY.md, _Memory per open
 * stream_: four promises a stream before 7dc3f59). Counted with v8.queryObjects, which collects
 * first, so only what is held is counted; the clients are raw sockets, which hold no promise.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import v8 from 'node:v8'
import { quietAgent, rpc, startA2a, type TestServer } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ agents: [quietAgent] })
})
after(() => server.close())

const STREAMS = 100

/** The request line and headers of a SubscribeToTask over each binding. */
const subscribeRequest = (binding: 'JSON-RPC' | 'HTTP+JSON', host: string, id: string): string => {
  if (binding === 'HTTP+JSON')
    return `GET /a2a/rest/tasks/${id}:subscribe HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\na2a-version: 1.0\r\n\r\n`
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } })
  return `POST /a2a/jsonrpc HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\na2a-version: 1.0\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** Opens `count` streams on the task; resolves once every one has had its first frame (the Task). */
const openStreams = (binding: 'JSON-RPC' | 'HTTP+JSON', id: string, count: number): Promise<Socket[]> => {
  const url = new URL(server.base('quiet'))
  const sockets: Socket[] = []
  return new Promise((resolve, reject) => {
    let opened = 0
    for (let i = 0; i < count; i++) {
      const socket = connect({ host: url.hostname, port: Number(url.port) })
      sockets.push(socket)
      let seen = ''
      let first = true
      socket.setEncoding('utf8')
      socket.on('error', reject)
      socket.on('data', (chunk: string) => {
        seen += chunk
        if (!first || !seen.includes('data: ')) return
        if (!seen.startsWith('HTTP/1.1 200')) reject(new Error(`not a stream: ${seen.slice(0, 200)}`))
        first = false
        seen = ''
        if (++opened === count) resolve(sockets)
      })
      socket.write(subscribeRequest(binding, url.host, id))
    }
  })
}

const held = async (): Promise<string> => {
  const started = await rpc(server.base('quiet'), 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
    configuration: { returnImmediately: true },
  })
  return started.body.result.task.id as string
}

/** Promises alive in this process after a full collection. */
const livePromises = (): number => v8.queryObjects(Promise) as number

describe('an open stream on a quiet task', () => {
  for (const binding of ['JSON-RPC', 'HTTP+JSON'] as const) {
    it(`${binding}: holds no promise while it waits`, async () => {
      const id = await held()
      // Warm the paths (lazy modules, pools) with streams that are closed again.
      for (const socket of await openStreams(binding, id, 5)) socket.destroy()
      await new Promise((resolve) => setImmediate(resolve))
      const before = livePromises()
      const sockets = await openStreams(binding, id, STREAMS)
      try {
        await new Promise((resolve) => setImmediate(resolve))
        const held = livePromises() - before
        // Before 7dc3f59 each waiting stream held four; a few may belong to the server at large.
        assert.ok(held < STREAMS / 10, `${held} promises held by ${STREAMS} waiting streams`)
      } finally {
        for (const socket of sockets) socket.destroy()
        const cancelled = await rpc(server.base('quiet'), 'CancelTask', { id })
        assert.equal(cancelled.body.result.status.state, 'TASK_STATE_CANCELED')
      }
    })
  }
})
