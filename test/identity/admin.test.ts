import assert from 'node:assert/strict'
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { newId } from '../../src/model/ids.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'

interface Raw {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** A request with exactly these headers (fetch will not send a Host of our choosing). */
const raw = (url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })

/** A local reverse proxy on 127.0.0.1 that forwards everything to `target`, adding X-Forwarded-For. */
const startProxy = async (target: string) => {
  const upstream = new URL(target)
  const proxy = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: upstream.host, 'x-forwarded-for': '203.0.113.9' },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers)
        response.pipe(outgoing)
      },
    )
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => proxy.close(resolve)) }
}

const errorCode = (response: Raw): string =>
  (JSON.parse(response.body) as { error: { code: string } }).error.code

describe('admin API: loopback-only mode (no token, no authenticators)', () => {
  let server: TestServer
  let proxy: Awaited<ReturnType<typeof startProxy>>
  before(async () => {
    server = await startServer()
    proxy = await startProxy(server.url)
  })
  after(async () => {
    await proxy.close()
    await server.close()
  })

  it('serves a plain loopback request, and a same-origin POST', async () => {
    assert.equal((await raw(`${server.url}/admin/deliveries/stats`)).status, 200)
    const retry = `${server.url}/admin/deliveries/${newId()}/retry`
    const sameOrigin = await raw(retry, { method: 'POST', headers: { origin: server.url } })
    assert.equal(sameOrigin.status, 404)
    assert.equal(errorCode(sameOrigin), 'DELIVERY_NOT_FOUND')
    assert.equal((await raw(retry, { method: 'POST' })).status, 404)
  })

  it('refuses a client on a non-loopback address, by the socket address alone', async () => {
    // inject sends no traffic: the socket address is the one given, so no second machine is needed.
    const from = (remoteAddress: string) =>
      server.switchboard.app.inject({ method: 'GET', url: '/admin/deliveries/stats', remoteAddress })
    for (const remoteAddress of ['10.0.0.1', '203.0.113.9', '::ffff:192.168.1.2', '2001:db8::1']) {
      const refused = await from(remoteAddress)
      assert.equal(refused.statusCode, 403, remoteAddress)
      assert.equal(refused.json().error.code, 'FORBIDDEN')
      assert.match(refused.json().error.message, /loopback clients only/)
    }
    for (const remoteAddress of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'])
      assert.equal((await from(remoteAddress)).statusCode, 200, remoteAddress)
  })

  it('refuses a request that came through a local proxy', async () => {
    const response = await raw(`${proxy.url}/admin/deliveries/stats`)
    assert.equal(response.status, 403)
    assert.equal(errorCode(response), 'FORBIDDEN')
    for (const header of ['forwarded', 'x-real-ip']) {
      const direct = await raw(`${server.url}/admin/deliveries/stats`, {
        headers: { [header]: 'for=203.0.113.9' },
      })
      assert.equal(direct.status, 403, header)
    }
  })

  it('refuses a foreign Host (DNS rebinding), accepts loopback names', async () => {
    const port = new URL(server.url).port
    const foreign = await raw(`${server.url}/admin/deliveries/stats`, {
      headers: { host: `rebind.example:${port}` },
    })
    assert.equal(foreign.status, 403)
    assert.match(JSON.parse(foreign.body).error.message, /another host/)
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, '[::1]']) {
      assert.equal(
        (await raw(`${server.url}/admin/deliveries/stats`, { headers: { host } })).status,
        200,
        host,
      )
    }
  })

  it('refuses a cross-site POST, by Origin or Sec-Fetch-Site', async () => {
    const retry = `${server.url}/admin/deliveries/${newId()}/retry`
    const byOrigin = await raw(retry, { method: 'POST', headers: { origin: 'https://evil.example' } })
    assert.equal(byOrigin.status, 403)
    assert.equal(errorCode(byOrigin), 'FORBIDDEN')
    const byFetchMetadata = await raw(retry, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } })
    assert.equal(byFetchMetadata.status, 403)
  })

  it('leaves the rest of the server to the generic stage (the proxy reaches tasks)', async () => {
    assert.equal((await raw(`${proxy.url}/healthz`)).status, 200)
  })
})

describe('admin API with authenticators and a token', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({
      identity: { authenticators: [testAuthenticator] },
      admin: { token: 'adm1n-token' },
    })
  })
  after(() => server.close())

  const stats = (headers: Record<string, string> = {}) =>
    raw(`${server.url}/admin/deliveries/stats`, { headers })

  it('opens to the admin token, which no authenticator knows', async () => {
    assert.equal((await stats({ authorization: 'Bearer adm1n-token' })).status, 200)
  })

  it('opens to a caller with the admin scope, from any address', async () => {
    assert.equal((await stats(bearer('ops', 'acme', ['admin']))).status, 200)
  })

  it('refuses a caller without the admin scope with 403, and no or a bad credential with 401', async () => {
    const plain = await stats(bearer('alice', 'acme', ['tasks:read:tenant']))
    assert.equal(plain.status, 403)
    assert.equal(errorCode(plain), 'FORBIDDEN')
    for (const headers of [
      {},
      { authorization: 'Bearer bad' },
      { authorization: 'Bearer adm1n-token-' },
    ] as Record<string, string>[]) {
      const refused = await stats(headers)
      assert.equal(refused.status, 401)
      assert.equal(errorCode(refused), 'UNAUTHENTICATED')
      assert.match(String(refused.headers['www-authenticate']), /realm="switchboard-admin"/)
      assert.ok(!refused.body.includes('adm1n'), 'the token never appears in a refusal')
    }
  })

  it('refuses a cross-site POST even with the token', async () => {
    const response = await raw(`${server.url}/admin/deliveries/${newId()}/retry`, {
      method: 'POST',
      headers: { authorization: 'Bearer adm1n-token', origin: 'https://evil.example' },
    })
    assert.equal(response.status, 403)
  })
})
