/**
 * connect(): card discovery and validation, interface choice and failover, the origin allowlist,
 * the A2A-Version header, and card caching with ETag and max-age.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { CardCache, type ClientError, connect } from '../../src/client.ts'
import { UUID_V7 } from '../helpers/ids.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import {
  freePort,
  type RecordingProxy,
  recordingProxy,
  rejectsWith,
  stubCard,
  stubServer,
} from './helpers.ts'

let server: TestServer
let proxy: RecordingProxy
before(async () => {
  // Every request goes through the proxy (the cards name its URL), so each header is recorded.
  proxy = await recordingProxy()
  server = await startServer({ publicUrl: proxy.url, pingMs: 100 })
  proxy.target = `http://127.0.0.1:${(server.switchboard.app.server.address() as AddressInfo).port}`
})
after(async () => {
  await server.close()
  await proxy.close()
})

describe('discovery', () => {
  it('reads both cards of our server; preference, then card order, decides the interfaces', async () => {
    const base = `${proxy.url}/agents/report-builder`
    const agent = await connect(base, { cache: false })
    assert.equal(agent.name, 'Report Builder')
    assert.ok(agent.cards.a2a && agent.cards.clawpedia)
    assert.deepEqual(
      agent.interfaces.map((i) => [i.kind, i.url]),
      [
        ['jsonrpc', `${base}/a2a/jsonrpc`],
        ['rest', `${base}/a2a/rest`],
        ['grpc', `http://${server.switchboard.grpcAddress()}`],
        ['clawpedia', base],
      ],
    )
    const clawpediaFirst = await connect(base, { prefer: ['clawpedia', 'rest'], cache: false })
    assert.deepEqual(
      clawpediaFirst.interfaces.map((i) => i.kind),
      ['clawpedia', 'rest'],
    )
    assert.ok(clawpediaFirst.skipped.some((s) => s.includes('jsonrpc is not among the preferred')))
  })

  it('takes a card URL as well as a base URL, and falls back to /agent-card.json', async () => {
    const direct = await connect(`${proxy.url}/agents/report-builder/agent-card.json`, {
      prefer: ['clawpedia'],
      cache: false,
    })
    assert.equal(direct.interface.url, `${proxy.url}/agents/report-builder`)
    const clawpediaOnly = await stubServer((req) =>
      req.url === '/agent-card.json'
        ? {
            status: 200,
            body: {
              protocol_version: '1.0',
              agent_id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
              display_name: 'Plain',
              description: 'A Clawpedia-only agent',
              capabilities: [],
              input_schema: { type: 'object' },
            },
          }
        : { status: 404, body: 'not here' },
    )
    try {
      const agent = await connect(clawpediaOnly.url, { cache: false })
      assert.deepEqual(
        agent.interfaces.map((i) => i.kind),
        ['clawpedia'],
      )
      assert.deepEqual(
        clawpediaOnly.hits.map((h) => h.url),
        ['/.well-known/agent-card.json', '/agent-card.json'],
      )
    } finally {
      await clawpediaOnly.close()
    }
  })

  it('refuses invalid cards with CARD_INVALID naming the field, and a missing card with CARD_NOT_FOUND', async () => {
    const cards: Record<string, unknown> = {
      '/a2a/.well-known/agent-card.json': {
        ...stubCard([{ url: 'http://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
        skills: undefined,
      },
      '/claw/.well-known/agent-card.json': {
        protocol_version: '1.0',
        agent_id: 'not-a-uuid',
        display_name: 'x',
        description: 'short',
        capabilities: [],
      },
      '/old/.well-known/agent-card.json': {
        name: 'Old',
        url: 'http://x',
        protocolVersion: '0.3.0',
        preferredTransport: 'JSONRPC',
      },
    }
    const stub = await stubServer((req) =>
      req.url in cards ? { status: 200, body: cards[req.url] as object } : { status: 404 },
    )
    try {
      await assert.rejects(connect(`${stub.url}/a2a`, { cache: false }), (error: unknown) => {
        rejectsWith('CARD_INVALID')(error)
        assert.match((error as Error).message, /skills/)
        return true
      })
      await assert.rejects(connect(`${stub.url}/claw`, { cache: false }), (error: unknown) => {
        rejectsWith('CARD_INVALID')(error)
        const fields = ((error as ClientError).details?.violations ?? []).map((v) => v.field)
        assert.ok(
          fields.includes('/agent_id') && fields.includes('/input_schema') && fields.includes('/description'),
        )
        return true
      })
      await assert.rejects(connect(`${stub.url}/old`, { cache: false }), /A2A 0\.3 card/)
      await assert.rejects(connect(`${stub.url}/nothing`, { cache: false }), rejectsWith('CARD_NOT_FOUND'))
    } finally {
      await stub.close()
    }
    await assert.rejects(
      connect(`http://127.0.0.1:${await freePort()}`, { cache: false }),
      rejectsWith('CONNECTION_FAILED'),
    )
  })
})

describe('interfaces', () => {
  it('falls back to the next interface when one cannot be reached, and stays there', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/a2a/jsonrpc`
    const rest = `${proxy.url}/agents/long-runner/a2a/rest`
    const stub = await stubServer(() => ({
      status: 200,
      body: stubCard([
        { url: dead, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ]),
    }))
    try {
      const agent = await connect(stub.url, { cache: false })
      assert.equal(agent.interface.kind, 'jsonrpc')
      const task = await agent.send({ steps: 1, step_ms: 1 })
      assert.equal(agent.interface.kind, 'rest', 'moved on to the interface that answers')
      assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
    } finally {
      await stub.close()
    }
  })

  it('skips interfaces of another version or binding; none left is NO_USABLE_INTERFACE', async () => {
    const stub = await stubServer(() => ({
      status: 200,
      body: stubCard([
        { url: 'http://127.0.0.1:1/ws', protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' },
        { url: 'http://127.0.0.1:1/old', protocolBinding: 'JSONRPC', protocolVersion: '0.2' },
        { url: '127.0.0.1:1', protocolBinding: 'GRPC', protocolVersion: '0.3' },
        { url: 'http://127.0.0.1:1/a2a', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ]),
    }))
    try {
      await assert.rejects(connect(stub.url, { cache: false }), (error: unknown) => {
        rejectsWith('NO_USABLE_INTERFACE')(error)
        const message = (error as Error).message
        assert.match(message, /WEBSOCKET is not supported.*A2A 0\.2/s)
        assert.match(message, /127\.0\.0\.1:1: GRPC at A2A 0\.3 is not supported \(this client speaks 1\.0\)/)
        assert.match(message, /\/a2a: not a gRPC address/)
        return true
      })
    } finally {
      await stub.close()
    }
  })

  it('allowOrigins: the agent URL and every interface must be on an allowed origin', async () => {
    const base = `${proxy.url}/agents/report-builder`
    await assert.rejects(
      connect(base, { allowOrigins: ['https://agents.example.com'] }),
      rejectsWith('ORIGIN_NOT_ALLOWED'),
    )
    const elsewhere = await stubServer(() => ({
      status: 200,
      body: stubCard([
        { url: 'https://evil.example.net/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        {
          url: `${proxy.url}/agents/report-builder/a2a/rest`,
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0',
        },
      ]),
    }))
    try {
      const agent = await connect(elsewhere.url, { allowOrigins: [elsewhere.url, proxy.url], cache: false })
      assert.deepEqual(
        agent.interfaces.map((i) => i.kind),
        ['rest'],
      )
      assert.ok(
        agent.skipped.some((s) => s.startsWith('https://evil.example.net/a2a: outside the allowed origins')),
      )
      await assert.rejects(
        connect(elsewhere.url, { allowOrigins: [elsewhere.url], cache: false }),
        rejectsWith('NO_USABLE_INTERFACE'),
      )
    } finally {
      await elsewhere.close()
    }
  })

  it('sends A2A-Version: 1.0 on the card fetch and on every A2A request, streams included', async () => {
    proxy.requests.length = 0
    for (const kind of ['jsonrpc', 'rest'] as const) {
      const agent = await connect(`${proxy.url}/agents/long-runner`, { prefer: [kind], cache: false })
      const task = await agent.send({ steps: 2, step_ms: 1 })
      await task.wait({ timeoutMs: 5000 })
      for await (const _ of task.events()) {
        // a whole replay over the stream
      }
      await task.cancel().catch(() => {})
    }
    const a2a = proxy.requests.filter(
      (r) => r.url.includes('/a2a/') || r.url.endsWith('/.well-known/agent-card.json'),
    )
    assert.ok(a2a.length >= 10, `saw ${a2a.length} A2A requests`)
    for (const request of a2a)
      assert.equal(request.headers['a2a-version'], '1.0', `${request.method} ${request.url}`)
    assert.ok(
      a2a.some((r) => r.url.endsWith(':subscribe')),
      'the REST stream went through the proxy',
    )
  })
})

describe('idempotency keys', () => {
  it('are minted time ordered (UUID v7), so a receiving store appends them at one edge of its index', async () => {
    proxy.requests.length = 0
    const agent = await connect(`${proxy.url}/agents/report-builder`, { prefer: ['clawpedia'], cache: false })
    for (let i = 0; i < 3; i += 1) await (await agent.send({ subject: `keys ${i}` })).cancel()
    const keys = proxy.requests
      .filter((r) => r.method === 'POST' && r.url.endsWith('/tasks'))
      .map((r) => String(r.headers['idempotency-key']))
    assert.equal(keys.length, 3)
    for (const key of keys) assert.match(key, UUID_V7)
    assert.deepEqual([...keys].sort(), keys, 'each key sorts after the one before')
  })
})

describe('card caching', () => {
  it('uses a fresh card without asking (max-age), revalidates a stale one with If-None-Match (304)', async () => {
    let maxAge = 60
    const card = stubCard([
      { url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ])
    const stub = await stubServer((req) =>
      req.headers['if-none-match'] === '"v1"'
        ? { status: 304, headers: { etag: '"v1"', 'cache-control': `max-age=${maxAge}` } }
        : { status: 200, headers: { etag: '"v1"', 'cache-control': `max-age=${maxAge}` }, body: card },
    )
    try {
      const cache = new CardCache()
      const first = await connect(stub.url, { cache, prefer: ['jsonrpc'] })
      assert.equal(first.discovery.a2a?.source, 'network')
      assert.equal(stub.hits.length, 1)
      const second = await connect(stub.url, { cache, prefer: ['jsonrpc'] })
      assert.equal(second.discovery.a2a?.source, 'cache')
      assert.equal(stub.hits.length, 1, 'a fresh card costs no request')

      maxAge = 0
      const other = new CardCache()
      await connect(stub.url, { cache: other, prefer: ['jsonrpc'] })
      const revalidated = await connect(stub.url, { cache: other, prefer: ['jsonrpc'] })
      assert.equal(revalidated.discovery.a2a?.source, 'revalidated')
      assert.equal(stub.hits.at(-1)?.headers['if-none-match'], '"v1"')
      assert.equal(revalidated.name, 'Stub')
    } finally {
      await stub.close()
    }
  })

  it("honours our server's own ETag and max-age", async () => {
    const cache = new CardCache()
    proxy.requests.length = 0
    await connect(`${proxy.url}/agents/csv-analyst`, { cache, prefer: ['jsonrpc'] })
    await connect(`${proxy.url}/agents/csv-analyst`, { cache, prefer: ['jsonrpc'] })
    assert.equal(proxy.requests.length, 1)
  })
})
