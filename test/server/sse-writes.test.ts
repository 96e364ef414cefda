/**
 * web/sse.ts `SseStream`: how many times a stream writes to its socket. Each write is a system
 * call and, on loopback, a wake-up of the client; a stream of one batch should cost two.
 */
import assert from 'node:assert/strict'
import { createServer, request, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createParser } from 'eventsource-parser'
import { jsonText } from '../../src/model/json.ts'
import { Heartbeats, SseStream } from '../../src/web/sse.ts'

/** What reached the socket, one entry per write call (a corked batch is one `_writev`). */
const recordWrites = (socket: Socket): string[][] => {
  const writes: string[][] = []
  const target = socket as unknown as {
    _write: (chunk: unknown, encoding: string, cb: () => void) => void
    _writev: (chunks: { chunk: unknown }[], cb: () => void) => void
  }
  const write = target._write.bind(socket)
  const writev = target._writev.bind(socket)
  target._write = (chunk, encoding, cb) => {
    writes.push([String(chunk)])
    write(chunk, encoding, cb)
  }
  target._writev = (chunks, cb) => {
    writes.push(chunks.map((c) => String(c.chunk)))
    writev(chunks, cb)
  }
  return writes
}

type Script = (stream: SseStream, res: ServerResponse) => Promise<void> | void

describe('the socket writes of an SSE stream', () => {
  const heartbeats = new Heartbeats(60_000)
  let script: Script = () => {}
  let writes: string[][] = []
  const server = createServer((_req, res) => {
    writes = recordWrites(res.socket!)
    void script(new SseStream(res, heartbeats, () => ': ping\n\n'), res)
  })
  let port = 0

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  after(async () => {
    heartbeats.closeAll()
    await new Promise((resolve) => server.close(resolve))
  })

  const get = (): Promise<string> =>
    new Promise((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve(body))
      })
        .on('error', reject)
        .end()
    })

  const anotherTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  it('sends the head with the frames of its tick, and the end of the body with the last frames', async () => {
    script = async (stream) => {
      stream.open()
      stream.send({ id: 1, data: jsonText({ first: true }) })
      await anotherTick()
      stream.send({ id: 2, data: jsonText({ n: 2 }) })
      stream.send({ id: 3, data: jsonText({ n: 3 }) })
      stream.end()
    }
    const body = await get()
    assert.equal(body, 'id: 1\ndata: {"first":true}\n\nid: 2\ndata: {"n":2}\n\nid: 3\ndata: {"n":3}\n\n')
    assert.equal(writes.length, 2, `two writes, not ${JSON.stringify(writes)}`)
    const [opening, closing] = writes.map((chunks) => chunks.join(''))
    assert.match(opening!, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n.*\r\nid: 1\n/)
    assert.doesNotMatch(opening!, /id: 2/)
    assert.match(closing!, /id: 2\n[\s\S]*id: 3\n[\s\S]*0\r\n\r\n$/)
  })

  it('writes a value holding line breaks as one data line, read back whole', async () => {
    const value = { text: 'CRLF\r\nCR\rLF\nLS\u2028PS\u2029end' }
    script = (stream) => {
      stream.open()
      stream.send({ id: 7, data: jsonText(value) })
      stream.end()
    }
    const body = await get()
    assert.equal(body.match(/^data: /gm)?.length, 1, body)
    assert.doesNotMatch(body.slice(0, -2), /\r|\n\n/, 'no line break inside the frame')
    const read: { id?: string; data: string }[] = []
    const parser = createParser({ onEvent: (event) => read.push(event) })
    parser.feed(body)
    assert.equal(read.length, 1)
    assert.equal(read[0]!.id, '7')
    assert.deepEqual(JSON.parse(read[0]!.data), value)
  })

  it('refuses an event name holding a line break: it would start a field of its own', async () => {
    let refused: unknown
    script = (stream) => {
      stream.open()
      try {
        stream.send({ event: 'status\nid: 99', data: jsonText({}) })
      } catch (error) {
        refused = error
      }
      stream.end()
    }
    const body = await get()
    assert.match(String(refused), /cannot contain a line break/)
    assert.equal(body, '')
  })

  it('writes the frames of one tick as one chunk of the body', async () => {
    script = async (stream) => {
      stream.open()
      await anotherTick()
      for (let n = 1; n <= 12; n++) stream.send({ id: n, data: jsonText({ n }) })
      stream.end()
    }
    const body = await get()
    assert.equal(body.split('\n\n').length, 13, body)
    assert.equal(writes.length, 2)
    // One chunk size line before the twelve frames, then the end of the body.
    assert.match(writes[1]!.join(''), /^[0-9a-f]+\r\nid: 1\n[^\r]*id: 12\ndata: \{"n":12\}\n\n\r\n0\r\n\r\n$/)
  })

  it('holds the frames of a tick up to a socket buffer only: past it they go, and report it full', async () => {
    const frame = { data: jsonText({ text: 'x'.repeat(1000) }) }
    let accepted = 0
    // The socket buffer's size: 16 KiB before Node 22, 64 KiB from it.
    let frames = 0
    script = async (stream, res) => {
      stream.open()
      await anotherTick()
      frames = Math.ceil(res.writableHighWaterMark / (frame.data.length + 8))
      while (stream.send(frame)) accepted += 1
      assert.ok(res.writableLength > 0, 'the held frames went to the socket')
      stream.end()
    }
    const body = await get()
    assert.ok(
      accepted >= frames / 2 && accepted <= 2 * frames,
      `backpressure after ${accepted} frames of 1 KB, a socket buffer being ${frames}`,
    )
    assert.equal(body.split('\n\n').length - 1, accepted + 1)
  })

  it('sends the head when its tick ends, with no frame to wait for', async () => {
    let release = (): void => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    script = async (stream) => {
      stream.open()
      await released
      stream.end()
    }
    const headers = new Promise<number>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        resolve(res.statusCode ?? 0)
        res.resume()
      })
        .on('error', reject)
        .end()
    })
    assert.equal(await headers, 200, 'the head reached the client while the stream had nothing to send')
    release()
  })

  it('holds the head, when asked, through the turns given: what they wrote leaves in one write', async () => {
    script = async (stream) => {
      // As a run's first batch is: queued for the next turn before the stream opens, then for the one after.
      const nextTurn = anotherTick()
      stream.open({ holdTurns: 2 })
      stream.send({ id: 1, data: jsonText({ first: true }) })
      await nextTurn
      stream.send({ id: 2, data: jsonText({ n: 2 }) })
      await anotherTick()
      stream.send({ id: 3, data: jsonText({ n: 3 }) })
      stream.end()
    }
    const body = await get()
    assert.equal(body, 'id: 1\ndata: {"first":true}\n\nid: 2\ndata: {"n":2}\n\nid: 3\ndata: {"n":3}\n\n')
    assert.equal(writes.length, 1, `one write, not ${JSON.stringify(writes)}`)
    assert.match(writes[0]!.join(''), /^HTTP\/1\.1 200 OK\r\n[\s\S]*id: 1\n[\s\S]*id: 3\n[\s\S]*0\r\n\r\n$/)
  })

  it('sends the held head and frames once the turns are over, and what comes later apart', async () => {
    script = async (stream) => {
      stream.open({ holdTurns: 2 })
      stream.send({ id: 1, data: jsonText({ first: true }) })
      await anotherTick()
      await anotherTick()
      await anotherTick()
      stream.send({ id: 2, data: jsonText({ n: 2 }) })
      stream.end()
    }
    const body = await get()
    assert.equal(body, 'id: 1\ndata: {"first":true}\n\nid: 2\ndata: {"n":2}\n\n')
    assert.equal(writes.length, 2, `two writes, not ${JSON.stringify(writes)}`)
    assert.match(writes[0]!.join(''), /^HTTP\/1\.1 200 OK\r\n[\s\S]*id: 1\n/)
    assert.match(writes[1]!.join(''), /id: 2\n[\s\S]*0\r\n\r\n$/)
  })

  it('ends an idle stream with one write', async () => {
    script = async (stream) => {
      stream.open()
      await anotherTick()
      stream.end()
    }
    assert.equal(await get(), '')
    assert.equal(writes.length, 2)
    assert.equal(writes[1]!.join(''), '0\r\n\r\n')
  })
})
