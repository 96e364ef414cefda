/**
 * A2A extensions on gRPC: `a2a-extensions` metadata activates them like the HTTP header, the
 * activated ones are echoed in the response's initial metadata (streams included), and a message
 * without a required one is FAILED_PRECONDITION EXTENSION_SUPPORT_REQUIRED, nothing stored.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Client, status } from '@grpc/grpc-js'
import { demoAgents } from '../../src/demo/index.ts'
import { parseExtensions } from '../../src/dialects/a2a/wire/service-parameters.ts'
import { startA2a, type TestServer } from '../a2a/helpers.ts'
import { CITATIONS, guarded, offering, runs, SIGNED } from '../fixtures/extension-agents.ts'
import { detailsOf, grpcAddressOf, metadataOf, rawClient, requestOf, stream, unary } from './helpers.ts'

let server: TestServer
let client: Client
before(async () => {
  server = await startA2a({ agents: [...demoAgents, guarded, offering] })
  client = rawClient(grpcAddressOf(server))
})
after(async () => {
  client.close()
  await server.close()
})

const send = () =>
  requestOf('sendMessage', {
    tenant: 'guarded',
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { n: 1 } }] },
  })

describe('A2A extensions on gRPC', () => {
  it('a message without a required extension: FAILED_PRECONDITION, nothing run', async () => {
    runs.length = 0
    const { error } = await unary(client, 'sendMessage', send())
    assert.equal(error?.code, status.FAILED_PRECONDITION)
    const info = detailsOf(error!).errorInfo
    assert.equal(info?.reason, 'EXTENSION_SUPPORT_REQUIRED')
    assert.match(info?.metadata.requiredExtensions ?? '', new RegExp(SIGNED.replace(/[.]/g, '\\.')))
    assert.equal(runs.length, 0)
  })

  it('activated ones are echoed in the initial metadata; unknown ones are ignored', async () => {
    const metadata = metadataOf({ 'a2a-extensions': `${SIGNED}, ${CITATIONS}, https://example.org/unknown` })
    const sent = await unary(client, 'sendMessage', send(), metadata)
    assert.equal(sent.error, undefined, sent.error?.details)
    const echoed = parseExtensions(sent.initial?.get('a2a-extensions').map(String))
    assert.ok(echoed.includes(SIGNED))
    assert.ok(!echoed.includes('https://example.org/unknown'))
    const streamed = await stream(
      client,
      'sendStreamingMessage',
      requestOf('sendStreamingMessage', {
        tenant: 'guarded',
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { n: 2 } }] },
      }),
      metadataOf({ 'a2a-extensions': SIGNED }),
    )
    assert.equal(streamed.error, undefined, streamed.error?.details)
    assert.deepEqual(parseExtensions(streamed.initial?.get('a2a-extensions').map(String)), [SIGNED])
  })
})
