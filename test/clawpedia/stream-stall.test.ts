/**
 * A stream client that stops reading is dropped after `stallMs` of backpressure: the server closes
 * the connection and forgets the stream, instead of buffering for it without bound.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, before, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'

/** Set by the test once the stream is dropped: the flood ends and its task completes. */
let stop = false
const LOG = 'x'.repeat(16 * 1024)

/** Logs 16 KiB at a time until told to stop: enough to fill any socket buffer that is not read. */
const floodAgent = defineAgent({
  id: '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a90',
  slug: 'flood',
  name: 'Flood',
  description: 'Logs large messages until the test says stop, for backpressure tests.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    for (let i = 0; !stop && i < 10_000; i++) await ctx.log('info', LOG)
    return {}
  },
})

let server: TestServer
before(async () => {
  server = await startServer({ agents: [floodAgent], stallMs: 200 })
})
after(() => server.close())

/**
 * Sends the request and never reads: the socket is paused, so the kernel buffers fill up. Resolves
 * with the client socket and the server's end of the same connection.
 */
const stalledStream = async (path: string): Promise<{ client: Socket; serverSide: Socket }> => {
  const { port } = new URL(server.url)
  const accepted: Socket[] = []
  const onConnection = (socket: Socket) => accepted.push(socket)
  server.switchboard.app.server.on('connection', onConnection)
  const client = connect({ host: '127.0.0.1', port: Number(port) })
  client.pause()
  client.on('error', () => {}) // a reset is expected once dropped
  await new Promise((resolve) => client.once('connect', resolve))
  client.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n`)
  const serverSide = await eventually(
    async () => accepted.find((s) => s.remotePort === client.localPort),
    10_000,
    'the server to accept the connection',
  )
  server.switchboard.app.server.off('connection', onConnection)
  return { client, serverSide }
}

it('drops a stream client that stops reading once it stays backpressured past stallMs', {
  timeout: 30_000,
}, async () => {
  const base = `${server.url}/agents/flood`
  const id = (await request(`${base}/tasks`, { body: { input: {} } })).body.task_id as string
  const { client, serverSide } = await stalledStream(`/agents/flood/tasks/${id}/stream`)
  const closed = new Promise<void>((resolve) => serverSide.once('close', () => resolve()))
  // The client never reads a byte: the server closes its end of the connection and forgets the stream.
  await closed
  await eventually(
    async () => ((await request(`${server.url}/healthz`)).body.open_streams === 0 ? true : undefined),
    10_000,
    'the stream to be forgotten',
  )
  // What the kernel buffered for the client is the stream it stopped reading.
  client.resume()
  const [head] = (await once(client, 'data')) as [Buffer]
  assert.match(head.toString('latin1'), /^HTTP\/1\.1 200[\s\S]*text\/event-stream[\s\S]*event: status/)
  client.destroy()
  stop = true
  const done = await eventually(async () => {
    const { body } = await request(`${base}/tasks/${id}`)
    return body.status === 'COMPLETED' ? body : undefined
  }, 10_000)
  assert.equal(done.status, 'COMPLETED', 'the task itself is unaffected by its dropped reader')
})
