/**
 * The gRPC transport over TLS: an https agent's `host:port` GRPC interface is dialled with TLS,
 * trusting the CA given in the `grpc` option (and presenting its client certificate, for mTLS).
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { Agent as Dispatcher } from 'undici'
import { type ClientError, connect } from '../../src/client.ts'
import { instantAgent } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { createPki, type Pki } from '../identity/pki.ts'

let pki: Pki
let ca: string
let serverCert: { cert: string; key: string }
let alice: { cert: string; key: string }
before(() => {
  pki = createPki()
  const caPath = pki.ca('test-ca')
  ca = pki.read(caPath)
  const issued = pki.issue({
    ca: caPath,
    name: 'server',
    subject: '/CN=127.0.0.1',
    extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth',
  })
  serverCert = { cert: pki.read(issued.cert), key: pki.read(issued.key) }
  pki.issue({
    ca: caPath,
    name: 'alice',
    subject: '/O=Acme/CN=alice',
    extensions: 'extendedKeyUsage=clientAuth',
  })
  alice = { cert: pki.read(`${pki.dir}/alice.pem`), key: pki.read(`${pki.dir}/alice.key`) }
})
after(() => pki.remove())

const options = (grpc: { ca?: string; cert?: string; key?: string }) => ({
  prefer: ['grpc' as const],
  cache: false as const,
  timeoutMs: 5000,
  // The card is read over HTTPS: undici gets the same CA and certificate (it does not reach gRPC).
  dispatcher: new Dispatcher({ connect: { ca, ...alice } }),
  grpc,
})

describe('gRPC over TLS', () => {
  let server: TestServer
  let base: string
  before(async () => {
    server = await startServer({ agents: [instantAgent], tls: serverCert })
    base = `${server.url}/agents/instant`
  })
  after(async () => {
    await server.close()
  })

  it('an https agent: its host:port interface is dialled with TLS, trusting the given CA', async () => {
    assert.match(base, /^https:/)
    const agent = await connect(base, options({ ca }))
    assert.equal(agent.interface.kind, 'grpc')
    assert.match(agent.interface.url, /^https:\/\/127\.0\.0\.1:\d+$/)
    const done = await (await agent.send({ hello: 'tls' })).wait({ timeoutMs: 5000 })
    assert.equal(done.state, 'COMPLETED')
    assert.deepEqual(done.output, { echo: { hello: 'tls' } })
  })

  it('without a grpc.ca, NODE_EXTRA_CA_CERTS is trusted as by the HTTP bindings', async () => {
    const file = `${pki.dir}/extra-ca.pem`
    writeFileSync(file, ca)
    const previous = process.env.NODE_EXTRA_CA_CERTS
    process.env.NODE_EXTRA_CA_CERTS = file
    try {
      const agent = await connect(base, options({}))
      const done = await (await agent.send({ hello: 'extra' })).wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
    } finally {
      if (previous === undefined) delete process.env.NODE_EXTRA_CA_CERTS
      else process.env.NODE_EXTRA_CA_CERTS = previous
    }
  })

  it('a server certificate the channel cannot verify (system CAs only) is no connection', async () => {
    const agent = await connect(base, options({}))
    await assert.rejects(agent.send({ hello: 'untrusted' }), (error: ClientError) => {
      assert.equal(error.code, 'CONNECTION_FAILED')
      assert.equal(error.unreachable, true)
      return true
    })
  })
})

describe('gRPC over mutual TLS', () => {
  let server: TestServer
  let base: string
  before(async () => {
    server = await startServer({
      agents: [instantAgent],
      tls: { ...serverCert, clientCa: ca, clientTenant: 'acme' },
    })
    base = `${server.url}/agents/instant`
  })
  after(async () => {
    await server.close()
  })

  it('the client certificate identifies the caller; without it the call is UNAUTHENTICATED', async () => {
    const agent = await connect(base, options({ ca, ...alice }))
    const done = await (await agent.send({ hello: 'mtls' })).wait({ timeoutMs: 5000 })
    assert.equal(done.state, 'COMPLETED')
    const anonymous = await connect(base, options({ ca }))
    await assert.rejects(anonymous.send({ hello: 'anonymous' }), { code: 'UNAUTHENTICATED' })
  })
})
