/**
 * gRPC server spans name the caller that authentication established (inside the call's handler)
 * and, on a refused call, the policy that refused it, as the HTTP server spans do.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, beforeEach, describe, it } from 'node:test'
import { type Client, status } from '@grpc/grpc-js'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { createApiKey } from '../../src/identity/api-keys.ts'
import { startA2a, type TestServer } from '../a2a/helpers.ts'
import { callAny, grpcAddressOf, metadataOf, rawClient } from '../grpc/helpers.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
// The global context manager: authentication runs inside the call, where its span is the active one.
provider.register()

const bearer = (key: string) => metadataOf({ authorization: `Bearer ${key}` })
const send = {
  tenant: 'echo',
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { n: 1 } }] },
}

let server: TestServer
let client: Client
let alice: string
let carol: string
before(async () => {
  server = await startA2a({
    identity: { apiKeys: { header: 'x-api-key' } },
    access: { echo: { principals: ['alice'] } },
    tracing: { tracerProvider: provider },
  })
  client = rawClient(grpcAddressOf(server))
  const { store } = server.switchboard
  alice = (await createApiKey(store, { principal: 'alice', tenant: 'acme', scopes: [] })).key
  carol = (await createApiKey(store, { principal: 'carol', tenant: 'globex', scopes: [] })).key
})
after(async () => {
  client.close()
  await server.close()
  await provider.shutdown()
})
beforeEach(() => exporter.reset())

/** The call's span ends with its callback, just before the client has the answer: wait for it. */
const spanOf = async (name: string): Promise<ReadableSpan> => {
  for (;;) {
    const found = exporter.getFinishedSpans().find((s) => s.name === name)
    if (found) return found
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('gRPC server spans', () => {
  it('a call with an API key: the caller principal and tenant, no policy decision', async () => {
    const { error } = await callAny(client, 'sendMessage', send, bearer(alice))
    assert.equal(error, undefined, error?.details)
    const span = await spanOf('a2a.SendMessage')
    assert.equal(span.attributes['switchboard.caller.principal'], 'alice')
    assert.equal(span.attributes['switchboard.caller.tenant'], 'acme')
    assert.equal(span.attributes['switchboard.policy.decision'], undefined)
    assert.ok(!JSON.stringify(span.attributes).includes(alice), 'the key is never an attribute')
  })

  it('no credential: authentication-refused with the answer as its reason, no caller', async () => {
    const { error } = await callAny(client, 'listTasks', { tenant: 'echo' }, metadataOf({}))
    assert.equal(error?.code, status.UNAUTHENTICATED)
    const span = await spanOf('a2a.ListTasks')
    assert.equal(span.attributes['switchboard.policy.decision'], 'authentication-refused')
    assert.equal(span.attributes['switchboard.policy.reason'], error.details)
    assert.equal(span.attributes['switchboard.caller.principal'], undefined)
  })

  it("the agent's access rule: authorization-refused, with the caller it refused", async () => {
    const { error } = await callAny(client, 'listTasks', { tenant: 'echo' }, bearer(carol))
    assert.equal(error?.code, status.PERMISSION_DENIED)
    const span = await spanOf('a2a.ListTasks')
    assert.equal(span.attributes['switchboard.policy.decision'], 'authorization-refused')
    assert.equal(span.attributes['switchboard.policy.reason'], error.details)
    assert.equal(span.attributes['switchboard.caller.principal'], 'carol')
    assert.equal(span.attributes['switchboard.caller.tenant'], 'globex')
  })

  it('a refused stream: the policy decision on its span too', async () => {
    const { error } = await callAny(client, 'sendStreamingMessage', send, bearer(carol))
    assert.equal(error?.code, status.PERMISSION_DENIED)
    const span = await spanOf('a2a.SendStreamingMessage')
    assert.equal(span.attributes['switchboard.policy.decision'], 'authorization-refused')
    assert.equal(span.attributes['switchboard.caller.principal'], 'carol')
  })

  it('past the rate limit: rate-limited, with the caller', async () => {
    const limited = await startA2a({
      identity: { apiKeys: { header: 'x-api-key' } },
      limits: { requestsPerMinute: 1, burst: 1 },
      tracing: { tracerProvider: provider },
    })
    const limitedClient = rawClient(grpcAddressOf(limited))
    try {
      const { key } = await createApiKey(limited.switchboard.store, {
        principal: 'dave',
        tenant: 'acme',
        scopes: [],
      })
      const codes: (number | undefined)[] = []
      for (let i = 0; i < 2; i++)
        codes.push((await callAny(limitedClient, 'listTasks', { tenant: 'echo' }, bearer(key))).error?.code)
      assert.deepEqual(codes, [undefined, status.RESOURCE_EXHAUSTED])
      const refused = exporter
        .getFinishedSpans()
        .filter((s) => s.attributes['switchboard.policy.decision'] === 'rate-limited')
      assert.equal(refused.length, 1)
      assert.equal(refused[0]!.attributes['switchboard.caller.principal'], 'dave')
    } finally {
      limitedClient.close()
      await limited.close()
    }
  })
})
