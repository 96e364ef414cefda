import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { DEFAULTS } from '../../src/server/defaults.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'

/** A raw connection to the server, and everything it receives until it closes. */
const open = async (
  url: string,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> => {
  const { hostname, port } = new URL(url)
  const socket = connect({ host: hostname, port: Number(port) })
  let text = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk
  })
  // The server may reset a connection it refuses: that is a close too.
  socket.on('error', () => {})
  const closed = once(socket, 'close').then(() => undefined)
  await once(socket, 'connect')
  return { socket, received: () => text, closed }
}

describe('connection timeouts', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ connections: { headersTimeoutMs: 100, requestTimeoutMs: 100 }, pingMs: 40 })
  })
  after(() => server.close())

  it('answers a body trickled one byte at a time 408 REQUEST_TIMEOUT in the envelope, and closes the connection', async () => {
    const client = await open(server.url)
    const { host } = new URL(server.url)
    client.socket.write(
      `POST /tasks HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
    )
    // One byte per tick until the server answers: the body never completes in time.
    const trickle = setInterval(() => client.socket.writable && client.socket.write(' '), 10)
    client.socket.once('data', () => clearInterval(trickle))
    await client.closed
    clearInterval(trickle)
    const [head, body] = client.received().split('\r\n\r\n')
    assert.match(head!, /^HTTP\/1\.1 408 /)
    assert.match(head!, /connection: close/i)
    assert.deepEqual(JSON.parse(body!).error.code, 'REQUEST_TIMEOUT')
  })

  it('answers headers that never end 408 in the envelope', async () => {
    const client = await open(server.url)
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
    await client.closed
    assert.match(client.received(), /^HTTP\/1\.1 408 [\s\S]*"REQUEST_TIMEOUT"/)
  })

  it('keeps an SSE stream open long past the request timeout once its request was read', async () => {
    const created = await request(`${server.url}/agents/long-runner/tasks`, {
      body: { input: { steps: 1, step_ms: 60_000 } },
    })
    assert.equal(created.status, 202)
    // Eight idle pings at 40 ms: the stream outlives the 100 ms request timeout and its checks.
    const stream = await readSse(`${server.url}/agents/long-runner/tasks/${created.body.task_id}/stream`, {
      stopWhen: (_, all) => all.filter((e) => e.event === 'ping').length >= 8,
    })
    assert.equal(stream.status, 200, stream.body)
    assert.equal(stream.closedByServer, false)
  })
})

describe('the connection cap', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ connections: { maxConnections: 2 } })
  })
  after(() => server.close())

  it('refuses a connection past the cap, and serves again once one closes', async () => {
    const accepted: Socket[] = []
    server.switchboard.app.server.on('connection', (socket: Socket) => accepted.push(socket))
    const first = await open(server.url)
    const second = await open(server.url)
    const refused = await open(server.url)
    await refused.closed
    assert.equal(refused.received(), '')

    first.socket.end()
    // Wait until the server has seen the first connection go: its slot is free from then on.
    const [serverSide] = accepted
    if (!serverSide!.destroyed) await once(serverSide!, 'close')
    const health = await request(`${server.url}/healthz`, { headers: { connection: 'close' } })
    assert.equal(health.status, 200)
    second.socket.destroy()
  })
})

describe('the default connection cap', () => {
  it('leaves room for the 10,000 open streams one process is meant to hold (a cap of 1,000 cut streams in the benchmark)', () => {
    assert.ok(DEFAULTS.maxConnections >= 10_000 + 1_000, `maxConnections is ${DEFAULTS.maxConnections}`)
  })
})
