/**
 * Identity on gRPC, with the HTTP side's rules: an API key as a bearer token in `authorization`
 * metadata (or the API-key header), none → UNAUTHENTICATED, another principal's task → NOT_FOUND,
 * the per-agent access rule → PERMISSION_DENIED, the rate limit (buckets shared with HTTP) →
 * RESOURCE_EXHAUSTED; and mutual TLS: the verified client certificate is the caller.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Client, credentials, status } from '@grpc/grpc-js'
import { defineAgent } from '../../src/agent/define.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { createApiKey } from '../../src/identity/api-keys.ts'
import { echoAgent, rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { createPki, type Pki } from '../identity/pki.ts'
import { callAny, detailsOf, grpcAddressOf, metadataOf, rawClient } from './helpers.ts'

const send = (tenant: string) => ({
  tenant,
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { n: 1 } }] },
})
const bearer = (key: string) => metadataOf({ authorization: `Bearer ${key}` })

const vip = defineAgent({
  id: '7a1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  slug: 'vip',
  name: 'VIP',
  description: 'Shows members more than the public.',
  skills: [{ id: 'public', name: 'Public', description: 'For everyone.', tags: ['public'] }],
  extendedCard: {
    description: 'The members-only skill too.',
    skills: [{ id: 'members', name: 'Members only', description: 'For members.', tags: ['members'] }],
  },
  inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
})

describe('gRPC callers by API key', () => {
  let server: TestServer
  let client: Client
  let alice: string
  let bob: string
  let carol: string
  before(async () => {
    server = await startA2a({
      agents: [...demoAgents, vip, echoAgent],
      identity: { apiKeys: { header: 'x-api-key' } },
      access: { echo: { principals: ['alice', 'bob'] } },
    })
    client = rawClient(grpcAddressOf(server))
    const { store } = server.switchboard
    alice = (await createApiKey(store, { principal: 'alice', tenant: 'acme', scopes: [] })).key
    bob = (await createApiKey(store, { principal: 'bob', tenant: 'acme', scopes: [] })).key
    carol = (await createApiKey(store, { principal: 'carol', tenant: 'acme', scopes: [] })).key
  })
  after(async () => {
    client.close()
    await server.close()
  })

  it('a bearer key in authorization metadata is the caller; the API-key header works too', async () => {
    const created = await callAny(client, 'sendMessage', send('echo'), bearer(alice))
    assert.equal(created.error, undefined, created.error?.details)
    const id = (created.response as { task: { id: string } }).task.id
    const read = await callAny(client, 'getTask', { tenant: 'echo', id }, metadataOf({ 'x-api-key': alice }))
    assert.equal((read.response as { id: string }).id, id)
  })

  it('no credential, or a wrong one: UNAUTHENTICATED with its ErrorInfo, the key never echoed', async () => {
    for (const metadata of [metadataOf({}), bearer('sbk_not-a-real-key-at-all')]) {
      const { error } = await callAny(client, 'listTasks', { tenant: 'echo' }, metadata)
      assert.equal(error?.code, status.UNAUTHENTICATED)
      assert.equal(detailsOf(error!).errorInfo?.reason, 'UNAUTHENTICATED')
      assert.doesNotMatch(error!.details, /not-a-real-key/)
    }
  })

  it("another principal's task is NOT_FOUND; the agent's access rule is PERMISSION_DENIED", async () => {
    const created = await callAny(client, 'sendMessage', send('echo'), bearer(alice))
    const id = (created.response as { task: { id: string } }).task.id
    const { error } = await callAny(client, 'getTask', { tenant: 'echo', id }, bearer(bob))
    assert.equal(error?.code, status.NOT_FOUND)
    assert.equal(detailsOf(error!).errorInfo?.reason, 'TASK_NOT_FOUND')
    const denied = await callAny(client, 'listTasks', { tenant: 'echo' }, bearer(carol))
    assert.equal(denied.error?.code, status.PERMISSION_DENIED)
    assert.equal(detailsOf(denied.error!).errorInfo?.reason, 'PERMISSION_DENIED')
    const elsewhere = await callAny(client, 'listTasks', { tenant: 'long-runner' }, bearer(carol))
    assert.equal(elsewhere.error, undefined, 'the rule is per agent')
  })

  it('GetExtendedAgentCard: the extended card for a caller with a key, UNAUTHENTICATED without', async () => {
    const { response, error } = await callAny(
      client,
      'getExtendedAgentCard',
      { tenant: 'vip' },
      bearer(alice),
    )
    assert.equal(error, undefined, error?.details)
    const card = response as {
      description: string
      skills: { id: string }[]
      supportedInterfaces: { protocolBinding: string; tenant?: string }[]
      securitySchemes: Record<string, unknown>
    }
    assert.equal(card.description, 'The members-only skill too.')
    assert.deepEqual(
      card.skills.map((skill) => skill.id),
      ['public', 'members'],
    )
    assert.ok(card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC' && i.tenant === 'vip'))
    assert.ok(Object.keys(card.securitySchemes).length > 0, 'the 1.0 security schemes, as protobuf')
    const anonymous = await callAny(client, 'getExtendedAgentCard', { tenant: 'vip' })
    assert.equal(anonymous.error?.code, status.UNAUTHENTICATED)
  })

  it('the request tenant only routes: it never widens the caller’s own tenant', async () => {
    const created = await callAny(client, 'sendMessage', send('echo'), bearer(alice))
    const id = (created.response as { task: { id: string } }).task.id
    // Over JSON-RPC the same key reads it; the gRPC tenant "echo" was the agent, not a tenant.
    const read = await rpc(
      server.base('echo'),
      'GetTask',
      { id },
      { 'A2A-Version': '1.0', authorization: `Bearer ${alice}` },
    )
    assert.equal(read.body.result?.id, id)
  })
})

describe('the rate limit on gRPC', () => {
  it('draws from the same buckets as HTTP: past the burst, RESOURCE_EXHAUSTED', async () => {
    const server = await startA2a({ identity: { apiKeys: {} }, limits: { requestsPerMinute: 6, burst: 2 } })
    const client = rawClient(grpcAddressOf(server))
    try {
      const key = (
        await createApiKey(server.switchboard.store, { principal: 'dora', tenant: 't', scopes: [] })
      ).key
      const http = await rpc(
        server.base('echo'),
        'ListTasks',
        {},
        { 'A2A-Version': '1.0', authorization: `Bearer ${key}` },
      )
      assert.ok(http.body.result, 'the first request, over HTTP')
      assert.equal((await callAny(client, 'listTasks', { tenant: 'echo' }, bearer(key))).error, undefined)
      const { error } = await callAny(client, 'listTasks', { tenant: 'echo' }, bearer(key))
      assert.equal(error?.code, status.RESOURCE_EXHAUSTED)
      const details = detailsOf(error!)
      assert.equal(details.errorInfo?.reason, 'RATE_LIMITED')
      assert.match(details.errorInfo?.metadata.retryAfterSeconds ?? '', /^\d+$/)
    } finally {
      client.close()
      await server.close()
    }
  })
})

describe('gRPC over TLS without client certificates', () => {
  it('serves TLS with the HTTP certificate; a plaintext client cannot connect', async () => {
    const pki = createPki()
    const caPath = pki.ca('plain-ca')
    const cert = pki.issue({
      ca: caPath,
      name: 'server',
      subject: '/CN=127.0.0.1',
      extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth',
    })
    const server = await startA2a({ tls: { cert: pki.read(cert.cert), key: pki.read(cert.key) } })
    const secure = rawClient(grpcAddressOf(server), credentials.createSsl(Buffer.from(pki.read(caPath))))
    const plain = rawClient(grpcAddressOf(server))
    try {
      const { error } = await callAny(secure, 'listTasks', { tenant: 'echo' })
      assert.equal(error, undefined, error?.details)
      const refused = await callAny(plain, 'listTasks', { tenant: 'echo' })
      assert.equal(refused.error?.code, status.UNAVAILABLE)
    } finally {
      secure.close()
      plain.close()
      await server.close()
      pki.remove()
    }
  })
})

describe('gRPC over mutual TLS', () => {
  let pki: Pki
  let server: TestServer
  const clientOf = (name?: string) => {
    const ca = Buffer.from(pki.read(`${pki.dir}/test-ca.pem`))
    const channel = name
      ? credentials.createSsl(
          ca,
          Buffer.from(pki.read(`${pki.dir}/${name}.key`)),
          Buffer.from(pki.read(`${pki.dir}/${name}.pem`)),
        )
      : credentials.createSsl(ca)
    return rawClient(grpcAddressOf(server), channel)
  }
  before(async () => {
    pki = createPki()
    const caPath = pki.ca('test-ca')
    const serverCert = pki.issue({
      ca: caPath,
      name: 'server',
      subject: '/CN=127.0.0.1',
      extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth',
    })
    for (const name of ['alice', 'bob'])
      pki.issue({
        ca: caPath,
        name,
        subject: `/O=Acme/CN=${name}`,
        extensions: 'extendedKeyUsage=clientAuth',
      })
    server = await startA2a({
      tls: { cert: pki.read(serverCert.cert), key: pki.read(serverCert.key), clientCa: pki.read(caPath) },
    })
  })
  after(async () => {
    await server.close()
    pki.remove()
  })

  it('the verified client certificate is the caller; without one: UNAUTHENTICATED', async () => {
    const alice = clientOf('alice')
    const bob = clientOf('bob')
    const nobody = clientOf()
    try {
      const created = await callAny(alice, 'sendMessage', send('echo'))
      assert.equal(created.error, undefined, created.error?.details)
      const id = (created.response as { task: { id: string } }).task.id
      assert.equal(
        ((await callAny(alice, 'getTask', { tenant: 'echo', id })).response as { id: string }).id,
        id,
      )
      assert.equal((await callAny(bob, 'getTask', { tenant: 'echo', id })).error?.code, status.NOT_FOUND)
      assert.equal(
        (await callAny(nobody, 'listTasks', { tenant: 'echo' })).error?.code,
        status.UNAUTHENTICATED,
      )
    } finally {
      for (const c of [alice, bob, nobody]) c.close()
    }
  })
})
