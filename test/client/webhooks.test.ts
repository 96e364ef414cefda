/**
 * The webhook receiver: credentials (401), unknown tasks (404), duplicates (acknowledged, fed
 * once), signatures, the three mountings, and a task handle that follows its task by push from
 * our own server, in both dialects.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import express from 'express'
import Fastify from 'fastify'
import { connect, createWebhookReceiver, type TaskHandle, type WebhookReceiver } from '../../src/client.ts'
import { signPayload } from '../../src/outbound/signing.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect, shapes } from './helpers.ts'

const AUTH = 'Authorization: Bearer hook-secret-123'
const SECRET = 'whsec_client_test'

const notification = (taskId: string, status: string) =>
  JSON.stringify({
    event_type: 'task.status.updated',
    timestamp: new Date().toISOString(),
    data: {
      task_id: taskId,
      agent_id: 'c2d4e6f8-0a1b-4c3d-8e5f-7a9b1c3d5e70',
      status,
      input: {},
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: new Date().toISOString(),
    },
  })

const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  authorization: 'Bearer hook-secret-123',
  ...extra,
})

let server: TestServer
before(async () => {
  server = await startServer()
})
after(() => server.close())

/** A real task of ours, to register with a receiver (long enough that nothing ends it meanwhile). */
const someTask = async (): Promise<TaskHandle> =>
  (await connect(`${server.url}/agents/long-runner`, { prefer: ['clawpedia'] })).send({
    steps: 100,
    step_ms: 50,
  })

describe('receive()', () => {
  it('401 without the configured credentials, 404 for a task it does not follow', async () => {
    const receiver = createWebhookReceiver({ auth: AUTH })
    const body = Buffer.from(notification('0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', 'WORKING'))
    for (const authorization of [undefined, 'Bearer hook-secret-124', 'Bearer x', 'bearer hook-secret-123']) {
      const result = await receiver.receive({
        headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
        body,
      })
      assert.equal(result.status, 401, `authorization ${authorization}`)
    }
    const unknown = await receiver.receive({ headers: headers(), body })
    assert.equal(unknown.status, 404)
    assert.deepEqual(unknown.body, {
      error: {
        code: 'TASK_NOT_FOUND',
        message: 'task 0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b is not followed by this receiver',
      },
    })
  })

  it('a duplicate (same Idempotency-Key, or the same body) is acknowledged and delivered once', async () => {
    const receiver = createWebhookReceiver({ auth: AUTH })
    const task = await someTask()
    receiver.register(task)
    const working = Buffer.from(notification(task.id, 'WORKING'))
    const key = { 'idempotency-key': `${task.id}:3` }
    assert.deepEqual((await receiver.receive({ headers: headers(key), body: working })).body, {
      status: 'accepted',
    })
    assert.deepEqual((await receiver.receive({ headers: headers(key), body: working })).body, {
      status: 'duplicate',
    })
    // No key: the body's hash stands in for one.
    const cancelled = Buffer.from(notification(task.id, 'CANCELLED'))
    assert.equal((await receiver.receive({ headers: headers(), body: cancelled })).status, 200)
    assert.deepEqual((await receiver.receive({ headers: headers(), body: cancelled })).body, {
      status: 'duplicate',
    })
    assert.deepEqual(shapes(await collect(task.events({ via: 'push' }))), [
      'status:WORKING',
      'status:CANCELLED',
    ])
    await task.cancel()
  })

  it('checks Switchboard-Signature when a secret is set; refuses bodies that are not notifications', async () => {
    const receiver = createWebhookReceiver({ signingSecret: SECRET })
    const task = await someTask()
    receiver.register(task)
    const body = notification(task.id, 'WORKING')
    const json = { 'content-type': 'application/json' }
    assert.equal((await receiver.receive({ headers: json, body: Buffer.from(body) })).status, 401)
    const forged = {
      ...json,
      'switchboard-signature': signPayload(SECRET, body.replace('WORKING', 'FAILED')),
    }
    assert.equal((await receiver.receive({ headers: forged, body: Buffer.from(body) })).status, 401)
    const signed = { ...json, 'switchboard-signature': signPayload(SECRET, body) }
    assert.equal((await receiver.receive({ headers: signed, body: Buffer.from(body) })).status, 200)

    const sign = (text: string, type = 'application/json') => ({
      headers: { 'content-type': type, 'switchboard-signature': signPayload(SECRET, text) },
      body: Buffer.from(text),
    })
    assert.equal((await receiver.receive(sign(body, 'text/plain'))).status, 415)
    assert.equal((await receiver.receive(sign('{not json'))).status, 400)
    assert.equal((await receiver.receive(sign('{"hello":"world"}'))).status, 400)
    await task.cancel()
  })
})

describe('mounted', () => {
  let receiver: WebhookReceiver
  let task: TaskHandle
  const urls: Record<string, string> = {}
  const closers: Array<() => Promise<void>> = []

  before(async () => {
    receiver = createWebhookReceiver({ auth: AUTH })
    task = await someTask()
    receiver.register(task)

    const standalone = await receiver.listen({ path: '/hooks' })
    urls.standalone = standalone.url
    closers.push(standalone.close)

    const plain = createServer(receiver.handler).listen(0, '127.0.0.1')
    await once(plain, 'listening')
    urls.http = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/anything`
    closers.push(async () => {
      plain.close()
      await once(plain, 'close')
    })

    const app = express()
    app.post('/hooks', receiver.express)
    const expressServer = app.listen(0, '127.0.0.1')
    await once(expressServer, 'listening')
    urls.express = `http://127.0.0.1:${(expressServer.address() as AddressInfo).port}/hooks`
    closers.push(async () => {
      expressServer.closeAllConnections()
      expressServer.close()
      await once(expressServer, 'close')
    })

    const fastify = Fastify()
    await fastify.register(receiver.fastify, { prefix: '/hooks' })
    await fastify.listen({ port: 0, host: '127.0.0.1' })
    urls.fastify = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/hooks`
    closers.push(() => fastify.close())
  })
  after(async () => {
    await task.cancel().catch(() => {})
    for (const close of closers) await close()
  })

  for (const mount of ['standalone', 'http', 'express', 'fastify']) {
    it(`in ${mount}: 401, 404, then accepted once and a duplicate`, async () => {
      const post = (body: string, extra: Record<string, string> = {}) =>
        fetch(urls[mount]!, { method: 'POST', headers: { ...headers(), ...extra }, body })
      const body = notification(task.id, 'WORKING')
      assert.equal((await post(body, { authorization: 'Bearer wrong' })).status, 401)
      assert.equal((await post(notification('7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d', 'WORKING'))).status, 404)
      const key = { 'idempotency-key': `${task.id}:${mount}` }
      const first = await post(body, key)
      assert.equal(first.status, 200)
      assert.deepEqual(await first.json(), { status: 'accepted' })
      assert.deepEqual(await (await post(body, key)).json(), { status: 'duplicate' })
    })
  }
})

describe('following by push', () => {
  let receiver: WebhookReceiver
  let hook: { url: string; close(): Promise<void> }
  let pushing: TestServer
  before(async () => {
    receiver = createWebhookReceiver({ auth: AUTH, signingSecret: SECRET })
    hook = await receiver.listen({ path: '/hooks' })
    pushing = await startServer({
      notifications: { 'long-runner': { endpointUrl: hook.url, authHeader: AUTH } },
      outbound: { allow: ['127.0.0.0/8'] },
      push: { signingSecret: SECRET, baseMs: 5, capMs: 20, pollMs: 5 },
    })
  })
  after(async () => {
    await pushing.close()
    await hook.close()
  })

  it('Clawpedia: the agent notifies its configured endpoint; the handle reads the deliveries', async () => {
    const agent = await connect(`${pushing.url}/agents/long-runner`, { prefer: ['clawpedia'] })
    const task = await agent.send({ steps: 3, step_ms: 10 }, { webhook: { receiver, url: hook.url } })
    const updates = await collect(task.events())
    assert.deepEqual(shapes(updates), ['status:SUBMITTED', 'status:WORKING', 'status:COMPLETED'])
    assert.deepEqual(Object.keys(task.task.output ?? {}).sort(), ['elapsed_ms', 'steps'])
  })

  it('A2A: send registers the push config with the receiver credentials; status and artifacts arrive', async () => {
    const agent = await connect(`${pushing.url}/agents/python-script-generator`, { prefer: ['jsonrpc'] })
    const task = await agent.send(
      { topic: 'csv average', filename: 'avg.py' },
      { webhook: { receiver, url: hook.url } },
    )
    const updates = await collect(task.events())
    const kinds = shapes(updates)
    assert.deepEqual(
      kinds.filter((k) => k.startsWith('status:')),
      ['status:SUBMITTED', 'status:WORKING', 'status:COMPLETED'],
    )
    assert.ok(
      updates.some(
        (u) => u.type === 'artifact' && u.artifact.type === 'file' && u.artifact.filename === 'avg.py',
      ),
    )
    // Push bodies never carry the output: the completion was completed from GetTask.
    assert.equal(task.task.output?.filename, 'avg.py')
    const counts = await pushing.switchboard.engine.deliveries.count()
    assert.equal(counts.dead, 0)
  })
})
