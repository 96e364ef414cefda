/**
 * Which requests the 0.3 HTTP+JSON routes (`/v1/…`) serve: those negotiated as 0.3 (no
 * A2A-Version, or 0.3). With `A2A-Version: 1.0` a `/v1/…` path is the 1.0 route under the tenant
 * prefix "v1"; a server that does not serve 0.3 refuses them with VersionNotSupportedError. Also:
 * the sdk 0.3.14 ClientFactory picking HTTP+JSON from our card, the extended card (`GET /v1/card`),
 * and Last-Event-ID resuming a 0.3 stream.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Message, Task } from 'a2a-sdk-03'
import { ClientFactory, ClientFactoryOptions, RestTransport, RestTransportFactory } from 'a2a-sdk-03/client'
import { followFromFirstEvent, http, startA2a, type TestServer, V } from '../a2a/helpers.ts'
import { readSse } from '../helpers/sse.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'
import { vipAgent } from './helpers.ts'

const REST = '/a2a/rest'
const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', content: [{ text }] })
const sdkMessage = (text: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
})

describe('A2A 0.3 HTTP+JSON: version selection', () => {
  let server: TestServer
  let rest: string

  before(async () => {
    server = await startA2a({ identity: { authenticators: [testAuthenticator], allowAnonymous: true } })
    rest = `${server.base('echo')}${REST}`
  })
  after(() => server.close())

  it('serves /v1/… as 0.3 with no A2A-Version, and with A2A-Version: 0.3', async () => {
    for (const headers of [{}, { 'A2A-Version': '0.3' }, { 'A2A-Version': '0.3.0' }] as Record<
      string,
      string
    >[]) {
      const response = await http(`${rest}/v1/message:send`, { body: { message: message('hi') }, headers })
      assert.equal(response.status, 201, JSON.stringify(headers))
      assert.equal(response.body.task.status.state, 'TASK_STATE_COMPLETED')
    }
  })

  it('with A2A-Version: 1.0, /v1/… is the 1.0 route of tenant "v1", in 1.0 shapes', async () => {
    // Not the caller's tenant: refused as 1.0 refuses another tenant (a task id answers as missing).
    const send = await http(`${rest}/v1/message:send`, {
      body: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      headers: V,
    })
    assert.equal(send.status, 403)
    assert.equal(send.body.error.status, 'PERMISSION_DENIED')
    const get = await http(`${rest}/v1/tasks/${randomUUID()}`, { headers: V })
    assert.equal(get.status, 404)
    assert.equal(get.body.error.status, 'NOT_FOUND')
    // A caller whose tenant is "v1" is served there, the 1.0 way (`parts`, a 200, no `kind`).
    const own = await http(`${rest}/v1/message:send`, {
      body: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      headers: { ...V, ...bearer('vee', 'v1') },
    })
    assert.equal(own.status, 200)
    assert.equal(own.body.task.status.state, 'TASK_STATE_COMPLETED')
    const task = await http(`${rest}/v1/tasks/${own.body.task.id}`, {
      headers: { ...V, ...bearer('vee', 'v1') },
    })
    assert.equal(task.status, 200)
    assert.equal(task.body.id, own.body.task.id)
  })

  it('0.3 REST has no ListTasks here: GET /v1/tasks says it is a 1.0 operation', async () => {
    const response = await http(`${rest}/v1/tasks`)
    assert.equal(response.status, 400)
    assert.equal(response.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED')
    assert.match(response.body.error.message, /A2A 1\.0 operation/)
  })

  it('an unknown A2A-Version on /v1/… is VersionNotSupported', async () => {
    const response = await http(`${rest}/v1/message:send`, {
      body: { message: message('hi') },
      headers: { 'A2A-Version': '2.0' },
    })
    assert.equal(response.status, 400)
    assert.equal(response.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED')
  })

  it('one task, any version: created over 0.3 REST, followed over 1.0, cancelled over Clawpedia', async () => {
    const base = server.base('long-runner')
    const created = await http(`${base}${REST}/v1/message:send`, {
      body: {
        message: { ...message('x'), content: [{ data: { data: { steps: 500, step_ms: 20 } } }] },
        configuration: { blocking: false },
      },
    })
    assert.equal(created.status, 201)
    const taskId: string = created.body.task.id
    const { stream: followed } = await followFromFirstEvent(`${base}${REST}/tasks/${taskId}:subscribe`, {
      method: 'POST',
      headers: { ...V },
    })
    const cancelled = await http(`${base}/tasks/${taskId}/cancel`, { method: 'POST' })
    assert.equal(cancelled.body.status, 'CANCELLED')
    const stream = await followed
    assert.ok(stream.closedByServer)
    const last = JSON.parse(stream.events.at(-1)!.data)
    assert.equal(last.statusUpdate.status.state, 'TASK_STATE_CANCELED')
    const read = await http(`${base}${REST}/v1/tasks/${taskId}`)
    assert.equal(read.body.status.state, 'TASK_STATE_CANCELLED')
  })

  it('the sdk ClientFactory, preferring HTTP+JSON, reads our card and talks 0.3 REST', async () => {
    const urls: string[] = []
    const fetchImpl: typeof fetch = (input, init) => {
      urls.push(String(input))
      return fetch(input, init)
    }
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory({ fetchImpl })],
        preferredTransports: ['HTTP+JSON'],
      }),
    )
    const client = await factory.createFromUrl(`${server.base('echo')}/.well-known/agent-card.json`, '')
    const task = (await client.sendMessage({ message: sdkMessage('via the factory') })) as Task
    assert.equal(task.status.state, 'completed')
    assert.deepEqual((await client.getTask({ id: task.id })).id, task.id)
    assert.ok(urls.length >= 2)
    for (const url of urls) assert.ok(url.startsWith(`${rest}/v1/`), url)
  })

  it('resumes a 0.3 stream after its Last-Event-ID, with no task snapshot', async () => {
    const first = await readSse(`${rest}/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: { ...message('x'), content: [{ data: { data: { artifacts: true } } }] },
      }),
    })
    assert.equal(first.status, 200)
    // Every event's last item carries its sequence (an event may make several items).
    const ids = first.events.flatMap((e) => (e.id === undefined ? [] : [Number(e.id)]))
    assert.ok(first.events.at(-1)?.id !== undefined)
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    const items = first.events.map((e) => JSON.parse(e.data))
    assert.ok('task' in items[0])
    const taskId = items[0].task.id as string
    const at = first.events.findIndex((e, i) => i >= 1 && e.id !== undefined)
    const resumeAt = first.events[at]!
    const resumed = await readSse(`${rest}/v1/tasks/${taskId}:subscribe`, {
      headers: { 'last-event-id': resumeAt.id! },
    })
    assert.equal(resumed.status, 200)
    const after = first.events.slice(at + 1)
    assert.ok(after.length > 0)
    assert.deepEqual(
      resumed.events.map((e) => e.data),
      after.map((e) => e.data),
    )
    assert.ok(resumed.events.every((e) => !('task' in JSON.parse(e.data))))
  })
})

describe('A2A 0.3 HTTP+JSON: GET /v1/card', () => {
  let server: TestServer

  before(async () => {
    server = await startA2a({ agents: [vipAgent], identity: { authenticators: [testAuthenticator] } })
  })
  after(() => server.close())

  it('answers the extended card in the 0.3 proto shape; the sdk client reads it', async () => {
    const auth = bearer('alice', 'acme')
    const transport = new RestTransport({
      endpoint: `${server.base('vip')}${REST}`,
      fetchImpl: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...auth } }),
    })
    const card = await transport.getExtendedAgentCard()
    assert.deepEqual(
      card.skills.map((s) => s.id),
      ['public', 'members'],
    )
    assert.equal(card.supportsAuthenticatedExtendedCard, true)
    assert.equal(card.url, `${server.base('vip')}/a2a/jsonrpc`)
    assert.equal(card.preferredTransport, 'JSONRPC')
    assert.deepEqual(card.security, [{ test: [] }])
    assert.deepEqual(card.securitySchemes?.test, {
      type: 'http',
      scheme: 'Bearer',
      description: undefined,
      bearerFormat: undefined,
    })

    const raw = await http(`${server.base('vip')}${REST}/v1/card`, { headers: auth })
    assert.equal(raw.status, 200)
    assert.deepEqual(raw.body.security, [{ schemes: { test: {} } }])
    assert.deepEqual(raw.body.securitySchemes, { test: { httpAuthSecurityScheme: { scheme: 'Bearer' } } })
    assert.equal(raw.body.protocolVersion, '0.3.0')
    assert.equal(raw.body.signatures, undefined)
  })

  it('without credentials: 401 with the 0.3 error body', async () => {
    const raw = await http(`${server.base('vip')}${REST}/v1/card`)
    assert.equal(raw.status, 401)
    assert.equal(raw.body.code, -32000)
    assert.ok(raw.headers.get('www-authenticate'))
  })
})

describe('A2A 0.3 HTTP+JSON: a server that serves 1.0 only', () => {
  let server: TestServer

  before(async () => {
    server = await startA2a({ a2a: { v03: false } })
  })
  after(() => server.close())

  it('refuses /v1/… with VersionNotSupported, with or without A2A-Version: 0.3', async () => {
    for (const headers of [{}, { 'A2A-Version': '0.3' }] as Record<string, string>[]) {
      const response = await http(`${server.base('echo')}${REST}/v1/message:send`, {
        body: { message: message('hi') },
        headers,
      })
      assert.equal(response.status, 400)
      assert.equal(response.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED')
      assert.match(response.body.error.message, /1\.0/)
    }
  })
})
