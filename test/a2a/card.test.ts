/** The A2A Agent Card at every mount: required fields, truthful capabilities, HTTP caching. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { checkCard } from '../helpers/a2a-schema.ts'
import { http, startA2a, type TestServer } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server.close())

const cardOf = async (base: string) => {
  // No A2A-Version header: the card is how a client learns which version to speak.
  const response = await http(`${base}/.well-known/agent-card.json`)
  assert.equal(response.status, 200)
  checkCard(response.body)
  return response
}

describe('A2A agent card', () => {
  it('lists every binding with absolute URLs under the mount (gRPC: host:port and tenant), at 1.0 and then at 0.3', async () => {
    const base = server.base('long-runner')
    const { body: card } = await cardOf(base)
    const grpc = server.switchboard.grpcAddress()
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: grpc, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'long-runner' },
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ])
    assert.equal(card.name, 'Long Runner')
    assert.equal(card.version, '1.0.0')
    assert.deepEqual(card.capabilities, {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: false,
    })
    assert.deepEqual(card.defaultInputModes, ['application/json', 'text/plain'])
    assert.deepEqual(card.defaultOutputModes, ['application/json'])
    assert.deepEqual(card.skills, [
      {
        id: 'long-runner',
        name: 'Long Runner',
        description: card.description,
        tags: ['long-running', 'progress', 'cancellable'],
      },
    ])
    assert.equal(card.provider, undefined)
  })

  it('carries what a 0.3 client reads: the main URL, its transport, the others, the version', async () => {
    const base = server.base('long-runner')
    const { body: card } = await cardOf(base)
    assert.equal(card.protocolVersion, '0.3.0')
    assert.equal(card.url, `${base}/a2a/jsonrpc`)
    assert.equal(card.preferredTransport, 'JSONRPC')
    assert.deepEqual(card.additionalInterfaces, [
      { url: `${base}/a2a/jsonrpc`, transport: 'JSONRPC' },
      { url: `${base}/a2a/rest`, transport: 'HTTP+JSON' },
    ])
    assert.equal(card.supportsAuthenticatedExtendedCard, undefined, 'no extended card here')
  })

  it('is the 1.0 card alone to a client that asks for 1.0, and to every client when 0.3 is off', async () => {
    const base = server.base('long-runner')
    const asked = await http(`${base}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    checkCard(asked.body)
    assert.equal(asked.body.protocolVersion, undefined)
    assert.equal(asked.body.url, undefined)
    assert.equal(asked.body.supportedInterfaces.length, 3)
    assert.match(asked.headers.get('vary') ?? '', /A2A-Version/)
    const both = await cardOf(base)
    assert.notEqual(asked.headers.get('etag'), both.headers.get('etag'), 'each variant has its own ETag')
    const only10 = await startA2a({ a2a: { v03: false } })
    try {
      const { body: card } = await cardOf(only10.base('long-runner'))
      assert.equal(card.protocolVersion, undefined)
      assert.deepEqual(
        card.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion),
        ['1.0', '1.0', '1.0'],
      )
    } finally {
      await only10.close()
    }
  })

  it('uses the declared skills, modes and provider', async () => {
    const { body: card } = await cardOf(server.base('echo'))
    assert.deepEqual(card.skills, [
      { id: 'echo', name: 'Echo', description: 'Says it back.', tags: ['echo'], examples: ['hello'] },
    ])
    assert.deepEqual(card.defaultInputModes, ['application/json', 'text/plain', 'text/csv', 'image/png'])
    assert.deepEqual(card.defaultOutputModes, ['application/json', 'text/plain'])
    assert.deepEqual(card.provider, { organization: 'Switchboard tests', url: 'https://example.org' })
  })

  it('says so when an agent takes no push notifications', async () => {
    const { body: card } = await cardOf(server.base('no-push'))
    assert.equal(card.capabilities.pushNotifications, false)
  })

  it('serves the default agent at the root, with root URLs', async () => {
    const { body: card } = await cardOf(server.url)
    assert.equal(card.name, 'Python Script Generator')
    assert.equal(card.supportedInterfaces[0].url, `${server.url}/a2a/jsonrpc`)
    assert.equal(card.supportedInterfaces[1].url, `${server.url}/a2a/rest`)
    const listed = await http(`${server.url}/a2a/rest/tasks?pageSize=1`, {
      headers: { 'A2A-Version': '1.0' },
    })
    assert.equal(listed.status, 200, 'the root interfaces answer')
  })

  it('is cacheable: ETag, Cache-Control max-age, Last-Modified, 304 on If-None-Match', async () => {
    const base = server.base('report-builder')
    const { headers } = await cardOf(base)
    const etag = headers.get('etag')
    assert.ok(etag)
    assert.match(headers.get('cache-control') ?? '', /max-age=\d+/)
    assert.ok(headers.get('last-modified'))
    assert.match(headers.get('content-type') ?? '', /^application\/json/)
    const again = await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag } })
    assert.equal(again.status, 304)
    const versioned = await http(`${base}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })
    assert.equal(versioned.status, 200, 'the card is not version-gated')
  })
})
