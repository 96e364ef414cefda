/**
 * Client credentials against an authenticated server: bearer, API key, a custom function and
 * OAuth 2.0 client credentials (one token request for many calls, a refresh after expiry, a
 * renewal after a 401); every credential bound to the agent's origin (never to an artifact host,
 * never across a redirect, never to the public card); 401/403 as errors with the challenge; an
 * AUTH_REQUIRED task reported with its message; both directions of @a2a-js/sdk interop.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SendMessageRequest } from '@a2a-js/sdk'
import {
  type AuthenticationHandler,
  ClientFactory,
  createAuthenticatingFetchWithRetry,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client'
import { defineAgent } from '../../src/agent/define.ts'
import { type Agent, ClientError, connect, credentials, type InterfaceKind } from '../../src/client.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { TestAuthenticator } from '../helpers/test-authenticator.ts'
import { type RecordingProxy, recordingProxy, rejectsWith, stubServer } from './helpers.ts'
import { type SdkAgent, startSdkAgent } from './sdk-agent.ts'

const linker = defineAgent({
  id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  slug: 'linker',
  name: 'Linker',
  description: 'Completes at once, with a link artifact when given a URL.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
  async handler(input, ctx) {
    if (typeof input.url === 'string')
      await ctx.artifact({ type: 'url', name: 'link', url: input.url, filename: 'linked.txt' })
    return { ok: true }
  },
})

const KINDS: InterfaceKind[] = ['jsonrpc', 'rest', 'clawpedia']

let auth: TestAuthenticator
let server: TestServer
let proxy: RecordingProxy
let agentUrl: string
before(async () => {
  auth = new TestAuthenticator()
  // Every request goes through the proxy (the cards name its URL), so each header is recorded.
  proxy = await recordingProxy()
  server = await startServer({ agents: [linker], publicUrl: proxy.url, identity: { authenticators: [auth] } })
  proxy.target = `http://127.0.0.1:${(server.switchboard.app.server.address() as AddressInfo).port}`
  agentUrl = `${proxy.url}/agents/linker`
})
after(async () => {
  await server.close()
  await proxy.close()
})

const challenged = (message: RegExp) => (error: ClientError) => {
  assert.match(error.message, message)
  assert.equal(error.details?.challenge, 'Bearer realm="switchboard-test"')
}

describe('static credentials', () => {
  for (const kind of KINDS) {
    it(`${kind}: a bearer token works; none, or a wrong one, is UNAUTHENTICATED with the challenge`, async () => {
      const agent = await connect(agentUrl, {
        prefer: [kind],
        cache: false,
        credentials: credentials.bearer('good'),
      })
      assert.equal((await (await agent.send({})).wait({ timeoutMs: 5000 })).state, 'COMPLETED')

      const anonymous = await connect(agentUrl, { prefer: [kind], cache: false })
      await assert.rejects(
        anonymous.send({}),
        rejectsWith('UNAUTHENTICATED', challenged(/needs credentials: none were sent/)),
      )
      const wrong = await connect(agentUrl, { prefer: [kind], cache: false, credentials: { bearer: 'nope' } })
      await assert.rejects(
        wrong.send({}),
        rejectsWith('UNAUTHENTICATED', challenged(/bearer token is not valid/)),
      )
    })
  }

  it('an API key in its header, and a custom function asked per request with the URL and origin', async () => {
    const keyed = await connect(agentUrl, {
      cache: false,
      credentials: credentials.apiKey('good', 'X-API-Key'),
    })
    assert.equal((await (await keyed.send({})).wait({ timeoutMs: 5000 })).state, 'COMPLETED')
    const badKey = await connect(agentUrl, { cache: false, credentials: credentials.apiKey('bad') })
    await assert.rejects(badKey.send({}), rejectsWith('UNAUTHENTICATED', challenged(/API key is not valid/)))

    const asked: { url: string; origin: string }[] = []
    const custom = await connect(agentUrl, {
      prefer: ['rest'],
      cache: false,
      credentials: credentials.custom(async (request) => {
        asked.push(request)
        return { authorization: 'Bearer good' }
      }),
    })
    const task = await custom.send({})
    await task.refresh()
    assert.deepEqual(
      asked.map((a) => [a.origin, new URL(a.url).pathname]),
      [
        [proxy.url, '/agents/linker/a2a/rest/message:send'],
        [proxy.url, `/agents/linker/a2a/rest/tasks/${task.id}`],
      ],
    )
  })

  it('a header value with a line break is refused before anything is sent', async () => {
    const agent = await connect(agentUrl, {
      cache: false,
      credentials: { bearer: 'good\r\nx-evil: 1' },
    }).catch((error) => error)
    assert.ok(agent instanceof ClientError && agent.code === 'INVALID_REQUEST')
    assert.doesNotMatch(agent.message, /good|evil: 1/)
  })
})

describe('origin binding', () => {
  it('the public card is read without credentials; every API call carries them', async () => {
    const before = proxy.requests.length
    const agent = await connect(agentUrl, { cache: false, credentials: credentials.bearer('good') })
    await (await agent.send({})).wait({ timeoutMs: 5000 })
    const seen = proxy.requests.slice(before)
    const cards = seen.filter((r) => r.url.endsWith('agent-card.json'))
    assert.ok(cards.length > 0)
    for (const card of cards) assert.equal(card.headers.authorization, undefined, card.url)
    const calls = seen.filter((r) => !r.url.endsWith('agent-card.json'))
    assert.ok(calls.length > 0)
    for (const call of calls) assert.equal(call.headers.authorization, 'Bearer good', call.url)
  })

  it('an artifact on another origin gets no credentials (neither the token nor connect headers)', async () => {
    const files = await stubServer(() => ({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    }))
    try {
      const agent = await connect(agentUrl, {
        cache: false,
        credentials: credentials.bearer('good'),
        headers: { 'x-tenant-secret': 's3cret' },
      })
      const task = await agent.send({ url: `${files.url}/file.txt` })
      await task.wait({ timeoutMs: 5000 })
      const [link] = await task.artifacts()
      const saved = await task.download(link!, {
        to: mkdtempSync(join(tmpdir(), 'creds-')),
        allowPrivate: true,
      })
      assert.equal(saved.bytes, 1)
      assert.equal(files.hits.length, 1)
      assert.equal(files.hits[0]!.headers.authorization, undefined)
      assert.equal(files.hits[0]!.headers['x-tenant-secret'], undefined)
    } finally {
      await files.close()
    }
  })

  it('a redirect to another origin, and interfaces the card puts there, get no credentials', async () => {
    // The bound origin guards its card and sends it to another origin (our server, through the proxy).
    const front = await stubServer(
      (request): { status: number; headers: Record<string, string>; body?: object } => {
        if (request.headers.authorization !== 'Bearer good')
          return {
            status: 401,
            headers: { 'www-authenticate': 'Bearer' },
            body: { error: { message: 'no' } },
          }
        return { status: 302, headers: { location: `${agentUrl}/.well-known/agent-card.json` } }
      },
    )
    try {
      const before = proxy.requests.length
      const agent = await connect(front.url, { cache: false, credentials: credentials.bearer('good') })
      // Both card locations (A2A's, then Clawpedia's) are asked for without, then with credentials.
      assert.deepEqual(
        front.hits.map((h) => [h.url, h.headers.authorization]),
        [
          ['/.well-known/agent-card.json', undefined],
          ['/.well-known/agent-card.json', 'Bearer good'],
          ['/agent-card.json', undefined],
          ['/agent-card.json', 'Bearer good'],
        ],
      )
      await assert.rejects(agent.send({}), rejectsWith('UNAUTHENTICATED'))
      const elsewhere = proxy.requests.slice(before)
      assert.ok(elsewhere.length >= 2)
      for (const request of elsewhere) assert.equal(request.headers.authorization, undefined, request.url)
    } finally {
      await front.close()
    }
  })
})

/**
 * A tiny OAuth 2.0 token endpoint: issues `token(1)`, `token(2)`, … (each valid on the server
 * while `serverTakesNewTokens`), records each request's form.
 */
const tokenEndpoint = async (expiresIn: number[] = []) => {
  const prefix = randomUUID().slice(0, 8)
  const state = { serverTakesNewTokens: true, forms: [] as URLSearchParams[] }
  const token = (n: number) => `${prefix}-tok-${n}`
  let issued = 0
  const endpoint = await stubServer((request) => {
    const form = new URLSearchParams(request.body)
    state.forms.push(form)
    const basic = `Basic ${Buffer.from('client-1:s3cr3t').toString('base64')}`
    if (request.headers.authorization !== basic || form.get('grant_type') !== 'client_credentials')
      return { status: 401, body: { error: 'invalid_client', error_description: 'unknown client' } }
    issued += 1
    if (state.serverTakesNewTokens) auth.tokens.add(token(issued))
    return {
      status: 200,
      body: { access_token: token(issued), token_type: 'Bearer', expires_in: expiresIn[issued - 1] ?? 3600 },
    }
  })
  const oauth2 = {
    tokenUrl: `${endpoint.url}/token`,
    clientId: 'client-1',
    clientSecret: 's3cr3t',
    scope: 'tasks',
  }
  return Object.assign(endpoint, { state, token, oauth2 })
}

type TokenEndpoint = Awaited<ReturnType<typeof tokenEndpoint>>

/** An agent connection with OAuth 2.0 credentials from a fresh token endpoint. */
const withOAuth2 = async (
  options: { expiresIn?: number[]; prefer?: InterfaceKind; clientSecret?: string },
  body: (endpoint: TokenEndpoint, agent: Agent) => Promise<void>,
) => {
  const endpoint = await tokenEndpoint(options.expiresIn)
  try {
    const agent = await connect(agentUrl, {
      cache: false,
      ...(options.prefer && { prefer: [options.prefer] }),
      credentials: credentials.oauth2({
        ...endpoint.oauth2,
        ...(options.clientSecret && { clientSecret: options.clientSecret }),
      }),
    })
    await body(endpoint, agent)
  } finally {
    await endpoint.close()
  }
}

describe('OAuth 2.0 client credentials', () => {
  it('many concurrent calls share one token request', () =>
    withOAuth2({}, async (endpoint, agent) => {
      const tasks = await Promise.all(Array.from({ length: 8 }, () => agent.send({})))
      assert.equal(tasks.length, 8)
      assert.equal(endpoint.hits.length, 1)
      assert.equal(endpoint.state.forms[0]!.get('scope'), 'tasks')
    }))

  it('an expired token is replaced before use; a fresh one is reused', () =>
    withOAuth2({ expiresIn: [0, 3600] }, async (endpoint, agent) => {
      const from = auth.seen.length
      for (let i = 0; i < 3; i++) await agent.send({})
      assert.equal(endpoint.hits.length, 2)
      assert.deepEqual(auth.seen.slice(from), [endpoint.token(1), endpoint.token(2), endpoint.token(2)])
    }))

  for (const kind of KINDS) {
    it(`${kind}: a token the server stops taking is renewed once, and the call succeeds`, () =>
      withOAuth2({ prefer: kind }, async (endpoint, agent) => {
        await agent.send({})
        auth.tokens.delete(endpoint.token(1))
        const from = auth.seen.length
        assert.equal((await (await agent.send({})).wait({ timeoutMs: 5000 })).state, 'COMPLETED')
        assert.deepEqual(auth.seen.slice(from, from + 2), [endpoint.token(1), endpoint.token(2)])
        assert.equal(endpoint.hits.length, 2)
        // A server that refuses every token: one renewal, then the refusal is the answer.
        auth.tokens.delete(endpoint.token(2))
        endpoint.state.serverTakesNewTokens = false
        await assert.rejects(agent.send({}), rejectsWith('UNAUTHENTICATED'))
        assert.equal(endpoint.hits.length, 3)
      }))
  }

  it('a refused client is UNAUTHENTICATED with the OAuth error, never the secret', async () => {
    await withOAuth2({ clientSecret: 'wrong-secret' }, async (_endpoint, agent) => {
      await assert.rejects(
        agent.send({}),
        rejectsWith('UNAUTHENTICATED', (error) => {
          assert.match(error.message, /invalid_client: unknown client/)
          assert.doesNotMatch(JSON.stringify({ m: error.message, d: error.details }), /wrong-secret/)
        }),
      )
    })
    await assert.rejects(
      connect(agentUrl, {
        cache: false,
        credentials: credentials.oauth2({
          tokenUrl: 'http://auth.example.com/token',
          clientId: 'c',
          clientSecret: 's',
        }),
      }),
      rejectsWith('INVALID_REQUEST', (error) => assert.match(error.message, /must be https/)),
    )
  })
})
describe('@a2a-js/sdk interop with authentication', () => {
  let sdk: SdkAgent
  before(async () => {
    sdk = await startSdkAgent({ bearer: 'sdk-secret' })
  })
  after(() => sdk.close())

  for (const kind of ['jsonrpc', 'rest'] as const) {
    it(`${kind}: our client authenticates to an SDK server behind a bearer middleware`, async () => {
      await assert.rejects(
        connect(sdk.url, { prefer: [kind], cache: false }),
        rejectsWith('UNAUTHENTICATED', (error) =>
          assert.equal(error.details?.challenge, 'Bearer realm="sdk"'),
        ),
      )
      const agent = await connect(sdk.url, {
        prefer: [kind],
        cache: false,
        credentials: credentials.bearer('sdk-secret'),
      })
      const done = await (await agent.send({ steps: 1, step_ms: 1 })).wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
    })

    it(`${kind}: an AUTH_REQUIRED task is reported as such, with the agent's message`, async () => {
      const agent = await connect(sdk.url, {
        prefer: [kind],
        cache: false,
        credentials: credentials.bearer('sdk-secret'),
      })
      const task = await (await agent.send({ authorize: true })).wait({ timeoutMs: 5000 })
      assert.equal(task.state, 'AUTH_REQUIRED')
      assert.equal(task.prompt, 'Authorize calendar access at https://auth.example/consent')
    })
  }

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`the official SDK client (${binding}) with an auth handler drives our authenticated server`, async () => {
      const handler: AuthenticationHandler = {
        headers: async () => ({ authorization: 'Bearer good' }),
        shouldRetryWithHeaders: async () => undefined,
      }
      const fetchImpl = createAuthenticatingFetchWithRetry(fetch, handler)
      const factory = new ClientFactory({
        transports:
          binding === 'JSONRPC'
            ? [new JsonRpcTransportFactory({ fetchImpl })]
            : [new RestTransportFactory({ fetchImpl })],
      })
      const client = await factory.createFromUrl(`${agentUrl}/.well-known/agent-card.json`, '')
      const result = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
        }),
      )
      assert.ok('status' in result)
      const task = await client.getTask({ id: result.id } as never)
      assert.equal(task.id, result.id)
      const unauthenticated = await new ClientFactory({
        transports: binding === 'JSONRPC' ? [new JsonRpcTransportFactory()] : [new RestTransportFactory()],
      }).createFromUrl(`${agentUrl}/.well-known/agent-card.json`, '')
      await assert.rejects(unauthenticated.getTask({ id: result.id } as never))
    })
  }
})
