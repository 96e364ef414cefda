/**
 * The A2A stream writer (serveStream) pumps the items with callbacks instead of an async loop, so
 * that an open stream keeps no suspended function and no promise of its route's handler. It must
 * still do what `for await` did: write every item until the items end, ask the items to stop
 * (return()) when it cannot write an item, and report a failure mid-stream as one error frame.
 * The response's close asks them once more in every case (a client that goes away stops them so).
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import pino from 'pino'
import { a2aFailure } from '../../src/dialects/a2a/errors.ts'
import { followedCopy, type StreamEncoding, serveStream } from '../../src/dialects/a2a/stream.ts'
import { DONE, PENDING, type Pullable, type Pulled, type Waker } from '../../src/engine/pull.ts'
import { jsonText } from '../../src/model/json.ts'
import type { Task } from '../../src/model/task.ts'
import type { ServerContext } from '../../src/web/context.ts'
import { Heartbeats } from '../../src/web/sse.ts'

interface Item {
  id?: number
  text: string
}

/** Items from a list, then the end or a failure; counts the return() calls. */
class ListItems implements AsyncIterableIterator<Item> {
  returns = 0
  #at = 0
  constructor(
    private readonly list: Item[],
    private readonly failAtEnd = false,
  ) {}
  [Symbol.asyncIterator](): this {
    return this
  }
  next(): Promise<IteratorResult<Item, undefined>> {
    const item = this.list[this.#at++]
    if (item) return Promise.resolve({ done: false, value: item })
    if (this.failAtEnd) return Promise.reject(new Error('the items failed'))
    return Promise.resolve({ done: true, value: undefined })
  }
  return(): Promise<IteratorResult<Item, undefined>> {
    this.returns++
    return Promise.resolve({ done: true, value: undefined })
  }
}

const encoding: StreamEncoding<Item> = {
  encode(item) {
    if (item.text === 'unwritable') throw a2aFailure('InternalError', 'cannot encode this item')
    return jsonText({ text: item.text })
  },
  encodeError: (failure) => ({ event: 'error', data: jsonText({ error: failure.kind }) }),
}

const serve = async (items: ListItems): Promise<{ body: string; answer: unknown }> => {
  const server = { heartbeats: new Heartbeats(60_000), stallMs: 1000, logger: pino({ level: 'silent' }) }
  const app = Fastify()
  let answer: unknown = 'not called'
  app.get('/', async (_request, reply) => {
    answer = serveStream({ reply, server: server as unknown as ServerContext, items, encoding })
  })
  try {
    const response = await app.inject({ method: 'GET', url: '/' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/event-stream/)
    return { body: response.body, answer }
  } finally {
    await app.close()
  }
}

describe('the A2A stream writer', () => {
  it('writes every item with its id and ends with the items', async () => {
    const items = new ListItems([{ id: 1, text: 'a' }, { text: 'b' }, { id: 3, text: 'c' }])
    const { body, answer } = await serve(items)
    assert.equal(body, 'id: 1\ndata: {"text":"a"}\n\ndata: {"text":"b"}\n\nid: 3\ndata: {"text":"c"}\n\n')
    assert.equal(items.returns, 1, 'only by the close')
    // Nothing for the route's handler to wait on while the stream is open.
    assert.equal(answer, undefined)
  })

  it('reports items that fail as one error frame', async () => {
    const items = new ListItems([{ id: 1, text: 'a' }], true)
    const { body } = await serve(items)
    assert.equal(body, 'id: 1\ndata: {"text":"a"}\n\nevent: error\ndata: {"error":"InternalError"}\n\n')
    assert.equal(items.returns, 1, 'only by the close')
  })

  it('stops the items at an item it cannot write, and reports it', async () => {
    const items = new ListItems([
      { id: 1, text: 'a' },
      { id: 2, text: 'unwritable' },
      { id: 3, text: 'c' },
    ])
    const { body } = await serve(items)
    assert.equal(body, 'id: 1\ndata: {"text":"a"}\n\nevent: error\ndata: {"error":"InternalError"}\n\n')
    assert.equal(items.returns, 2, 'by the writer, then by the close')
  })
})

/** Large items for as long as they are asked for; `stopped` settles at the first return(). */
class EndlessItems implements AsyncIterableIterator<Item> {
  served = 0
  askedAfterStop = 0
  #stop: () => void = () => {}
  readonly stopped = new Promise<void>((resolve) => {
    this.#stop = resolve
  })
  #returned = false
  next(): Promise<IteratorResult<Item, undefined>> {
    if (this.#returned) this.askedAfterStop++
    this.served++
    return Promise.resolve({ done: false, value: { id: this.served, text: 'x'.repeat(16 * 1024) } })
  }
  [Symbol.asyncIterator](): this {
    return this
  }
  return(): Promise<IteratorResult<Item, undefined>> {
    this.#returned = true
    this.#stop()
    return Promise.resolve({ done: true, value: undefined })
  }
}

/**
 * Pulled items (as the A2A items are): `ready` of them at once, then PENDING with a wake-up a
 * microtask later, then as many again, then the end.
 */
class PulledItems implements Pullable<Item>, AsyncIterableIterator<Item> {
  pulls = 0
  returns = 0
  #served = 0
  #waited = false
  constructor(private readonly ready: number) {}
  [Symbol.asyncIterator](): this {
    return this
  }
  next(): Promise<IteratorResult<Item, undefined>> {
    throw new Error('pulled items are pulled, not iterated')
  }
  pull(waker: Waker): Pulled<Item> {
    this.pulls++
    if (this.#served === this.ready && !this.#waited) {
      this.#waited = true
      queueMicrotask(() => waker.wake())
      return PENDING
    }
    if (this.#served === 2 * this.ready) return DONE
    this.#served++
    return { done: false, value: { id: this.#served, text: 'p' } }
  }
  return(): Promise<IteratorResult<Item, undefined>> {
    this.returns++
    return Promise.resolve(DONE)
  }
}

describe('the A2A stream writer with pulled items', () => {
  it('writes what is ready in a loop (no recursion, however many), waits, goes on when woken', async () => {
    const ready = 20_000
    const items = new PulledItems(ready)
    const server = { heartbeats: new Heartbeats(60_000), stallMs: 5000, logger: pino({ level: 'silent' }) }
    const app = Fastify()
    app.get('/', async (_request, reply) => {
      serveStream({ reply, server: server as unknown as ServerContext, items, encoding })
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const { port } = app.server.address() as { port: number }
      // A real socket, read as it comes: the writer goes on at each drain, as it would for a client.
      const body = await (await fetch(`http://127.0.0.1:${port}/`)).text()
      const frames = body.split('\n\n').filter(Boolean)
      assert.equal(frames.length, 2 * ready)
      assert.equal(frames[0], 'id: 1\ndata: {"text":"p"}')
      assert.equal(frames.at(-1), `id: ${2 * ready}\ndata: {"text":"p"}`)
      assert.equal(items.pulls, 2 * ready + 2, 'each item, the wait and the end: pulled once each')
      assert.equal(items.returns, 1, 'only by the close')
    } finally {
      await app.close()
    }
  })
})

describe('the A2A stream writer under backpressure', () => {
  it('drops a client that stops reading past stallMs, and stops asking for items', {
    timeout: 30_000,
  }, async () => {
    const items = new EndlessItems()
    const server = { heartbeats: new Heartbeats(60_000), stallMs: 200, logger: pino({ level: 'silent' }) }
    const app = Fastify()
    app.get('/', async (_request, reply) => {
      serveStream({ reply, server: server as unknown as ServerContext, items, encoding })
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const client = connect({ host: '127.0.0.1', port })
    client.pause()
    client.on('error', () => {}) // a reset is expected once dropped
    try {
      client.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n')
      await items.stopped
      const served = items.served
      // The client never read: the server closed the connection, and the writer asked for no more.
      await new Promise<void>((resolve) => {
        if (client.readableEnded || client.destroyed) resolve()
        else client.once('close', () => resolve()).once('end', () => resolve())
        client.resume()
      })
      assert.ok(served > 1, 'it wrote until the socket was full')
      assert.equal(items.askedAfterStop, 0)
      assert.equal(items.served, served)
    } finally {
      client.destroy()
      await app.close()
    }
  })
})

describe('the task a subscription folds into', () => {
  it('leaves out what no update shows, and keeps the rest', () => {
    const task = {
      id: 't',
      contextId: 'c',
      state: 'WORKING',
      version: 3,
      input: { big: 'x'.repeat(100) },
      text: 'hello',
      answers: [{ input: {} }],
      history: [{ messageId: 'm', role: 'user', parts: [] }],
      artifacts: [{ id: 'a' }],
    } as unknown as Task
    const copy = followedCopy(task)
    assert.deepEqual(copy.history, [])
    assert.deepEqual(copy.answers, [])
    assert.deepEqual(copy.input, {})
    assert.equal(copy.artifacts, task.artifacts)
    assert.equal(copy.version, 3)
    assert.equal(copy.state, 'WORKING')
    assert.equal(task.history.length, 1, 'the task read is left as it was')
  })
})
