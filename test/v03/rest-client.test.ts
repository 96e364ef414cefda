/**
 * Our RestV03Transport (A2A 0.3 over HTTP+JSON): against a real @a2a-js/sdk 0.3.14 server started
 * in the test, and against our own server's `/v1/…` routes. Sends (text, data, push config),
 * reads, multi-turn, streams (resubscribe, Last-Event-ID), cancel, and errors.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { RestTransport as SdkRestTransport } from 'a2a-sdk-03/client'
import type { A2aCard } from '../../src/client/card.ts'
import { ClientError } from '../../src/client/errors.ts'
import { RestV03Transport } from '../../src/client/transports/a2a-v03-rest.ts'
import type { RemoteTask, SendPayload, StreamFrame } from '../../src/client/types.ts'
import { connect } from '../../src/client.ts'
import type { TaskState } from '../../src/model/states.ts'
import { eventually, startA2a, startReceiver, type TestServer } from '../a2a/helpers.ts'
import { stubCard, stubServer } from '../client/helpers.ts'
import { runReportBuilder } from './helpers.ts'
import { type Sdk03Server, startSdk03Server } from './sdk03-server.ts'

const http = { timeoutMs: 10_000 }
const transportAt = (url: string, card: unknown) =>
  new RestV03Transport({
    iface: { url, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    card: card as A2aCard,
    http,
  })
const send = (transport: RestV03Transport, payload: SendPayload, extra: object = {}) =>
  transport.send({ payload, idempotencyKey: randomUUID(), ...extra }, {})
const reaches = (transport: RestV03Transport, id: string, state: TaskState): Promise<RemoteTask> =>
  eventually(async () => {
    const task = await transport.get(id, {})
    return task.state === state ? task : undefined
  }, `task ${id} to be ${state}`)

describe('RestV03Transport against an @a2a-js/sdk 0.3.14 server', () => {
  let agent: Sdk03Server
  let transport: RestV03Transport

  before(async () => {
    agent = await startSdk03Server({ binding: 'HTTP+JSON' })
    transport = transportAt(agent.restUrl, agent.card)
  })
  after(() => agent.close())

  it('sends a text, and reads the finished task with its artifact', async () => {
    const sent = await send(transport, { text: 'hello' })
    assert.equal(sent.dialect, 'a2a')
    const task = await reaches(transport, sent.id, 'COMPLETED')
    assert.deepEqual(
      task.artifacts?.map((a) => (a.type === 'text' ? a.text : a.type)),
      ['echo: hello'],
    )
    assert.deepEqual(
      (await transport.artifacts(sent.id, {})).map((a) => a.name),
      ['echo'],
    )
  })

  it('sends an input object as a 0.3 data part', async () => {
    const sent = await send(transport, { input: { colour: 'teal', n: 2 } })
    const task = await reaches(transport, sent.id, 'COMPLETED')
    const data = task.artifacts?.find((a) => a.name === 'data')
    assert.deepEqual(data, { id: data?.id, name: 'data', type: 'json', value: { colour: 'teal', n: 2 } })
  })

  it('runs a multi-turn task: the question, then the answer', async () => {
    const sent = await send(transport, { text: 'ask' })
    const waiting = await reaches(transport, sent.id, 'INPUT_REQUIRED')
    assert.equal(waiting.prompt, 'Which colour?')
    await transport.provideInput(waiting, { text: 'blue' }, {})
    const done = await reaches(transport, sent.id, 'COMPLETED')
    assert.ok(done.artifacts?.some((a) => a.type === 'text' && a.text === 'colour: blue'))
  })

  it('follows a task by resubscribing, and sees it cancelled', async () => {
    const sent = await send(transport, { text: 'hold' })
    await reaches(transport, sent.id, 'WORKING')
    const controller = new AbortController()
    const frames = await transport.stream(sent.id, { signal: controller.signal, idleMs: 10_000 })
    const seen: StreamFrame[] = []
    const iterator = frames[Symbol.asyncIterator]()
    const first = await iterator.next()
    assert.equal(first.done, false)
    seen.push(first.value as StreamFrame)
    assert.equal(seen[0]?.item.kind, 'task')
    const cancelled = await transport.cancel(sent.id, {})
    assert.equal(cancelled.state, 'CANCELLED')
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) seen.push(next.value)
    const last = seen.at(-1)?.item
    assert.equal(last?.kind, 'status')
    assert.equal(last?.kind === 'status' && last.state, 'CANCELLED')
  })

  it('reports the sdk errors by their codes', async () => {
    await assert.rejects(transport.get(randomUUID(), {}), (error: unknown) => {
      assert.ok(error instanceof ClientError)
      assert.equal(error.code, 'TASK_NOT_FOUND')
      assert.equal(error.status, 404)
      return true
    })
    const done = await send(transport, { text: 'quick' })
    await reaches(transport, done.id, 'COMPLETED')
    await assert.rejects(transport.cancel(done.id, {}), (error: unknown) => {
      assert.ok(error instanceof ClientError)
      assert.equal(error.code, 'TASK_NOT_CANCELABLE')
      return true
    })
  })

  it('registers a push config with the message, in the 0.3 shape', async () => {
    const receiver = await startReceiver()
    try {
      const sent = await send(
        transport,
        { text: 'hold' },
        {
          push: { url: receiver.url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'c' } },
        },
      )
      const sdk = new SdkRestTransport({ endpoint: agent.restUrl })
      const configs = await sdk.listTaskPushNotificationConfig({ id: sent.id })
      assert.equal(configs.length, 1)
      assert.equal(configs[0]?.pushNotificationConfig.url, receiver.url)
      assert.equal(configs[0]?.pushNotificationConfig.token, 'tok-1')
      assert.deepEqual(configs[0]?.pushNotificationConfig.authentication?.schemes, ['Bearer'])
      await transport.cancel(sent.id, {})
    } finally {
      await receiver.close()
    }
  })
})

describe('RestV03Transport against our server', () => {
  let server: TestServer
  const at = (slug: string) =>
    transportAt(`${server.base(slug)}/a2a/rest`, { capabilities: { streaming: true } })

  before(async () => {
    server = await startA2a()
  })
  after(() => server.close())

  it('sends, reads the output, and replays the stream after a Last-Event-ID', async () => {
    const echo = at('echo')
    const sent = await send(echo, { input: { hello: 'world' } })
    const task = await reaches(echo, sent.id, 'COMPLETED')
    assert.deepEqual((task.output as { input: unknown }).input, { hello: 'world' })
    const replay = async (lastEventId: string) => {
      const frames: StreamFrame[] = []
      const stream = await echo.stream(sent.id, {
        signal: AbortSignal.timeout(10_000),
        idleMs: 10_000,
        lastEventId,
      })
      for await (const frame of stream) frames.push(frame)
      return frames
    }
    const all = await replay('0')
    assert.ok(all.length > 2)
    assert.equal(all.at(-1)?.item.kind, 'status')
    const from = all.findIndex((f, i) => i > 0 && f.id !== undefined)
    const rest = await replay(all[from]!.id!)
    assert.deepEqual(rest, all.slice(from + 1))
  })

  it('runs a multi-turn task on report-builder', async () => {
    const reports = at('report-builder')
    const sent = await send(reports, { input: { subject: 'tides' } })
    const waiting = await reaches(reports, sent.id, 'INPUT_REQUIRED')
    assert.match(waiting.prompt ?? '', /sections/)
    assert.equal((waiting.inputSchema as { type?: string } | undefined)?.type, 'object')
    await reports.provideInput(waiting, { input: { sections: ['Intro'] } }, {})
    const done = await reaches(reports, sent.id, 'COMPLETED')
    assert.deepEqual(done.output, { title: 'Report: tides', sections: ['Intro'] })
  })

  it('cancels, and reads our errors', async () => {
    const echo = at('echo')
    const sent = await send(echo, { input: { hold_ms: 5000 } })
    assert.equal((await echo.cancel(sent.id, {})).state, 'CANCELLED')
    await assert.rejects(echo.get(randomUUID(), {}), (error: unknown) => {
      assert.ok(error instanceof ClientError)
      assert.equal(error.code, 'TASK_NOT_FOUND')
      return true
    })
    await assert.rejects(echo.send({ payload: { input: {} }, idempotencyKey: '' }, {}), (error: unknown) => {
      assert.ok(error instanceof ClientError)
      assert.equal(error.code, 'INVALID_REQUEST')
      assert.equal(error.status, 400)
      return true
    })
  })
})

describe('connect() with prefer ["rest"] picks RestV03Transport for 0.3 HTTP+JSON entries', () => {
  let agent: Sdk03Server
  let server: TestServer

  before(async () => {
    agent = await startSdk03Server({ binding: 'HTTP+JSON' })
    server = await startA2a()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  it('an sdk 0.3.14 agent (a 0.3-only card): send, stream, multi-turn', async () => {
    const remote = await connect(agent.url, { cache: false, prefer: ['rest'] })
    assert.deepEqual(remote.interfaces, [
      { kind: 'rest', url: agent.restUrl, streaming: true, a2aVersion: '0.3' },
    ])
    const handle = await remote.send({ text: 'hello' })
    const done = await handle.wait({ timeoutMs: 10_000 })
    assert.equal(done.state, 'COMPLETED')
    assert.ok(done.artifacts?.some((a) => a.type === 'text' && a.text === 'echo: hello'))

    const asked = await remote.send({ text: 'ask' })
    assert.equal((await asked.wait({ timeoutMs: 10_000 })).state, 'INPUT_REQUIRED')
    await asked.provideInput({ text: 'red' })
    const answered = await asked.wait({ timeoutMs: 10_000 })
    assert.ok(answered.artifacts?.some((a) => a.type === 'text' && a.text === 'colour: red'))

    const held = await remote.send({ text: 'hold' })
    const updates: string[] = []
    const following = (async () => {
      for await (const update of held.events({ via: 'stream', signal: AbortSignal.timeout(10_000) }))
        if (update.type === 'status') updates.push(update.task.state)
    })()
    await eventually(async () => (updates.length > 0 ? true : undefined), 'the stream to start')
    assert.equal((await held.cancel()).state, 'CANCELLED')
    await following
    assert.equal(updates.at(-1), 'CANCELLED')
  })

  it('our agent (its card read as 1.0): the 1.0 REST interface, not the 0.3 one', async () => {
    const remote = await connect(server.base('echo'), { cache: false, prefer: ['rest'] })
    assert.deepEqual(
      remote.interfaces.map((i) => [i.kind, i.url]),
      [['rest', `${server.base('echo')}/a2a/rest`]],
    )
    const done = await (await remote.send({ hello: 'there' })).wait({ timeoutMs: 10_000 })
    assert.deepEqual((done.output as { input: unknown }).input, { hello: 'there' })
  })
  it('our agent through a 0.3 HTTP+JSON entry only: a multi-turn task', async () => {
    const rest = `${server.base('report-builder')}/a2a/rest`
    const stub = await stubServer(() => ({
      status: 200,
      body: stubCard([{ url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' }]),
    }))
    try {
      const remote = await connect(stub.url, { cache: false, prefer: ['rest'] })
      assert.deepEqual(remote.interfaces, [{ kind: 'rest', url: rest, streaming: true, a2aVersion: '0.3' }])
      await runReportBuilder(remote)
    } finally {
      await stub.close()
    }
  })
})
