import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { Agent, fetch, request } from 'undici'
import { DEFAULTS } from '../../src/server/defaults.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

/** Past the default body limit (4 MiB): every client must read the 413, not a broken pipe. */
const TOTAL = 5 * 1024 * 1024
const CHUNK = 64 * 1024
const CLIENTS = 10

/** The body as a client streams it: chunk by chunk, so it is still sending when the server answers. */
async function* oversized(): AsyncGenerator<Buffer> {
  for (let sent = 0; sent < TOTAL; sent += CHUNK) {
    await new Promise((resolve) => setImmediate(resolve))
    yield Buffer.alloc(CHUNK, 'a')
  }
}

const assertEnvelope = (answer: { status: number; body: unknown }): void => {
  assert.equal(answer.status, 413)
  assert.equal((answer.body as { error: { code: string } }).error.code, 'PAYLOAD_TOO_LARGE')
}

/** Ten clients at once, each on its own connection. */
const clients = <T>(send: (dispatcher: Agent, i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const dispatcher = new Agent()
      try {
        return await send(dispatcher, i)
      } finally {
        await dispatcher.close()
      }
    }),
  )

describe('an oversized body', () => {
  let server: TestServer
  before(async () => {
    server = await startServer()
  })
  after(() => server.close())

  it('is answered 413 in the envelope to every undici request() client, with or without Content-Length', async () => {
    assert.ok(TOTAL > DEFAULTS.bodyLimit)
    const answers = await clients(async (dispatcher, i) => {
      const response = await request(`${server.url}/tasks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(i % 2 === 0 && { 'content-length': String(TOTAL) }),
        },
        body: Readable.from(oversized()),
        dispatcher,
      })
      return { status: response.statusCode, body: await response.body.json() }
    })
    for (const answer of answers) assertEnvelope(answer)
  })

  it('is answered 413 in the envelope to every fetch client', async () => {
    const answers = await clients(async (dispatcher, i) => {
      const response = await fetch(`${server.url}/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: i % 2 === 0 ? Buffer.alloc(TOTAL, 'a') : Readable.from(oversized()),
        duplex: 'half',
        dispatcher,
      })
      return { status: response.status, body: await response.json() }
    })
    for (const answer of answers) assertEnvelope(answer)
  })
})
