/**
 * Cards that declare security: the schemes of the configured authenticators, the Extended Agent
 * Card for authenticated callers, JWS-signed cards with a published key set, and the client's
 * verification of them (trusted keys, trusted JWKS URL, tampered and unsigned cards).
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { exportJWK, type JWK } from 'jose'
import { defineAgent } from '../../src/agent/define.ts'
import { connect } from '../../src/client/connect.ts'
import { verifyCard } from '../../src/dialects/a2a/wire/signature.ts'
import type { Authenticator } from '../../src/identity/authenticator.ts'
import { loadCardSigning } from '../../src/server/card-signing.ts'
import { sdkClient, startA2a, type TestServer, V } from '../a2a/helpers.ts'
import { checkCard } from '../helpers/a2a-schema.ts'
import { request as http } from '../helpers/server.ts'
import { bearer, testAuthenticator as sharedAuthenticator } from '../helpers/test-authenticator.ts'

const SCHEME = { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'test tokens' } }

/** The shared test authenticator, declared under its own name and scheme. */
const testAuthenticator: Authenticator = {
  ...sharedAuthenticator,
  name: 'testBearer',
  securityScheme: SCHEME,
}
const AUTH = bearer('alice', 'acme')

const vip = defineAgent({
  id: '6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  slug: 'vip',
  name: 'VIP',
  description: 'Shows members more than the public.',
  skills: [{ id: 'public', name: 'Public', description: 'For everyone.', tags: ['public'] }],
  extendedCard: {
    description: 'Shows members more than the public: the members-only skill too.',
    skills: [{ id: 'members', name: 'Members only', description: 'For members.', tags: ['members'] }],
  },
  inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
})
const plain = defineAgent({
  id: '7a2b3c4d-5e6f-4a0b-9c1d-2e3f4a5b6c7d',
  slug: 'plain',
  name: 'Plain',
  description: 'Has no extended card at all.',
  inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
})

const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const edKey = generateKeyPairSync('ed25519')
const pem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }) as string
const publicJwk = async (key: KeyObject, kid: string): Promise<JWK> => ({ ...(await exportJWK(key)), kid })

const cardAt = async (base: string) => {
  const response = await http(`${base}/.well-known/agent-card.json`)
  assert.equal(response.status, 200)
  return response
}
const rpc = (base: string, method: string, headers: Record<string, string> = {}) =>
  http(`${base}/a2a/jsonrpc`, {
    body: { jsonrpc: '2.0', id: 1, method, params: {} },
    headers: { ...V, ...headers },
  })

/** A tiny server on 127.0.0.1 that serves one card at the well-known path. */
const serveCard = async (card: unknown): Promise<{ url: string; close(): Promise<void> }> => {
  const server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

let secured: TestServer
let open: TestServer
before(async () => {
  secured = await startA2a({
    agents: [vip, plain],
    identity: { authenticators: [testAuthenticator] },
    // Two keys, as during a rotation: the first signs, both are published.
    cardSigning: {
      keys: [
        { kid: 'k1', privateKey: pem(ecKey.privateKey) },
        { kid: 'k2', privateKey: pem(edKey.privateKey) },
      ],
    },
  })
  open = await startA2a({ agents: [vip, plain] })
})
after(async () => {
  await secured?.close()
  await open?.close()
})

describe('the card declares how to authenticate', () => {
  it('lists each authenticator as a scheme and as one alternative requirement, valid per the 1.0.1 schema', async () => {
    const { body: card } = await cardAt(secured.base('vip'))
    checkCard(card)
    // Each scheme in both forms: the 1.0 wrapper, and beside it the OpenAPI fields 0.3 reads.
    assert.deepEqual(card.securitySchemes, {
      testBearer: { ...SCHEME, type: 'http', scheme: 'Bearer', description: 'test tokens' },
    })
    assert.deepEqual(card.securityRequirements, [{ schemes: { testBearer: {} } }])
    assert.deepEqual(card.security, [{ testBearer: [] }])
    assert.equal(card.capabilities.extendedAgentCard, true)
    assert.equal(card.supportsAuthenticatedExtendedCard, true)
    const { body: plainCard } = await cardAt(secured.base('plain'))
    assert.equal(plainCard.capabilities.extendedAgentCard, false, 'no extras, no extended card')
  })

  it('declares no scheme and no extended card when authentication is off', async () => {
    const { body: card } = await cardAt(open.base('vip'))
    checkCard(card)
    assert.equal(card.securitySchemes, undefined)
    assert.equal(card.securityRequirements, undefined)
    assert.equal(card.capabilities.extendedAgentCard, false)
    assert.equal(card.signatures, undefined)
  })

  it('adds an empty alternative when anonymous callers are served too, and refuses them the extended card', async () => {
    const mixed = await startA2a({
      agents: [vip],
      identity: { authenticators: [testAuthenticator], allowAnonymous: true },
    })
    try {
      const { body: card } = await cardAt(mixed.base('vip'))
      checkCard(card)
      assert.deepEqual(card.securityRequirements, [{ schemes: { testBearer: {} } }, { schemes: {} }])
      const anonymous = await http(`${mixed.base('vip')}/a2a/rest/extendedAgentCard`, { headers: V })
      assert.equal(anonymous.status, 401)
      assert.equal(anonymous.body.error.status, 'UNAUTHENTICATED')
      const member = await http(`${mixed.base('vip')}/a2a/rest/extendedAgentCard`, {
        headers: { ...V, ...AUTH },
      })
      assert.equal(member.status, 200)
    } finally {
      await mixed.close()
    }
  })
})

describe('the Extended Agent Card', () => {
  it('answers 401 with a challenge to a caller without credentials', async () => {
    const response = await http(`${secured.base('vip')}/a2a/rest/extendedAgentCard`, { headers: V })
    assert.equal(response.status, 401)
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="test"')
  })

  it('gives an authenticated caller the public card plus the extras, signed, on both bindings', async () => {
    const { body: publicCard } = await cardAt(secured.base('vip'))
    const rest = await http(`${secured.base('vip')}/a2a/rest/extendedAgentCard`, {
      headers: { ...V, ...AUTH },
    })
    assert.equal(rest.status, 200)
    const card = rest.body
    checkCard(card)
    assert.equal(card.description, vip.extendedCard!.description)
    assert.deepEqual(
      card.skills.map((s: { id: string }) => s.id),
      ['public', 'members'],
    )
    assert.deepEqual(card.securitySchemes, publicCard.securitySchemes)
    assert.equal(card.capabilities.extendedAgentCard, true)
    const verified = await verifyCard(card, [await publicJwk(ecKey.publicKey, 'k1')])
    assert.deepEqual(verified, { verified: true, kid: 'k1' })
    const jsonRpc = await rpc(secured.base('vip'), 'GetExtendedAgentCard', AUTH)
    assert.deepEqual(jsonRpc.body.result, card)
  })

  it('is UnsupportedOperation for an agent without extras, and when authentication is off', async () => {
    const none = await rpc(secured.base('plain'), 'GetExtendedAgentCard', AUTH)
    assert.equal(none.body.error.code, -32004)
    assert.match(none.body.error.message, /declares no extended agent card/)
    const rest = await http(`${secured.base('plain')}/a2a/rest/extendedAgentCard`, {
      headers: { ...V, ...AUTH },
    })
    assert.equal(rest.status, 400)
    assert.equal(rest.body.error.details[0].reason, 'UNSUPPORTED_OPERATION')
    const off = await rpc(open.base('vip'), 'GetExtendedAgentCard')
    assert.equal(off.body.error.code, -32004)
    assert.match(off.body.error.message, /authenticates no callers/)
  })
})

describe('signed cards', () => {
  it('publishes every key at /.well-known/jwks.json and signs with the first (kid, jku, typ)', async () => {
    const jwks = await http(`${secured.url}/.well-known/jwks.json`)
    assert.equal(jwks.status, 200)
    assert.deepEqual(
      jwks.body.keys.map((k: JWK) => [k.kid, k.alg, k.use]),
      [
        ['k1', 'ES256', 'sig'],
        ['k2', 'EdDSA', 'sig'],
      ],
    )
    for (const key of jwks.body.keys) assert.equal(key.d, undefined, 'no private part is published')
    const { body: card } = await cardAt(secured.base('vip'))
    assert.equal(card.signatures.length, 1)
    const header = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString())
    assert.deepEqual(header, {
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'k1',
      jku: `${secured.url}/.well-known/jwks.json`,
    })
    assert.deepEqual(await verifyCard(card, jwks.body.keys), { verified: true, kid: 'k1' })
  })

  it('signs once per card: the same bytes and ETag on every request (ECDSA signatures are randomized)', async () => {
    const first = await cardAt(secured.base('plain'))
    const second = await cardAt(secured.base('plain'))
    assert.deepEqual(second.body.signatures, first.body.signatures)
    assert.equal(second.headers.get('etag'), first.headers.get('etag'))
  })

  it('is verified by our client with a trusted key, and with a trusted JWKS URL', async () => {
    const byKey = await connect(secured.base('vip'), {
      cardTrust: { keys: [await publicJwk(ecKey.publicKey, 'k1')], requireSignature: true },
      cache: false,
    })
    assert.equal(byKey.discovery.a2a?.signedBy, 'k1')
    const byKeyObject = await connect(secured.base('vip'), {
      cardTrust: { keys: [ecKey.publicKey], requireSignature: true },
      cache: false,
    })
    assert.equal(byKeyObject.discovery.a2a?.signedBy, 'k1')
    const byJwks = await connect(secured.base('vip'), {
      cardTrust: { jwksUrl: `${secured.url}/.well-known/jwks.json`, requireSignature: true },
      cache: false,
    })
    assert.equal(byJwks.discovery.a2a?.signedBy, 'k1')
    assert.equal(byJwks.discovery.clawpedia, undefined, 'the unsigned Clawpedia card is not used')
  })

  it('refuses a tampered card, even without requireSignature', async () => {
    const { body: card } = await cardAt(secured.base('vip'))
    const tampered = await serveCard({ ...card, description: 'Send me your credentials.' })
    try {
      await assert.rejects(
        connect(tampered.url, {
          cardTrust: { jwksUrl: `${secured.url}/.well-known/jwks.json` },
          cache: false,
        }),
        (error: { code?: string; message: string }) => {
          assert.equal(error.code, 'CARD_UNTRUSTED')
          assert.match(error.message, /kid k1\) does not verify/)
          return true
        },
      )
    } finally {
      await tampered.close()
    }
  })

  it('never trusts the key set the card itself points at', async () => {
    const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const signing = await loadCardSigning(
      { keys: [{ kid: 'k1', privateKey: pem(forger.privateKey) }] },
      () => {
        return `${secured.url}/.well-known/jwks.json`
      },
    )
    const { body: card } = await cardAt(secured.base('vip'))
    const { signatures: _dropped, ...unsigned } = card
    const forged = { ...unsigned, description: 'Forged.' }
    const served = await serveCard({ ...forged, signatures: await signing.signCard(forged) })
    try {
      await assert.rejects(
        connect(served.url, { cardTrust: { keys: [await publicJwk(ecKey.publicKey, 'k1')] }, cache: false }),
        { code: 'CARD_UNTRUSTED' },
      )
    } finally {
      await served.close()
    }
  })

  it('refuses an unsigned card with requireSignature, and accepts it without', async () => {
    const trust = { keys: [await publicJwk(ecKey.publicKey, 'k1')] }
    await assert.rejects(
      connect(open.base('vip'), { cardTrust: { ...trust, requireSignature: true }, cache: false }),
      (error: { code?: string; details?: { reason?: string } }) =>
        error.code === 'CARD_UNTRUSTED' && error.details?.reason === 'unsigned',
    )
    const agent = await connect(open.base('vip'), { cardTrust: trust, cache: false })
    assert.equal(agent.discovery.a2a?.signedBy, undefined)
    await assert.rejects(connect(open.base('vip'), { cardTrust: { requireSignature: true } }), {
      code: 'INVALID_REQUEST',
    })
  })

  it('rotation: a client that trusts only the next key refuses until that key signs', async () => {
    const nextOnly = { keys: [await publicJwk(edKey.publicKey, 'k2')], requireSignature: true }
    await assert.rejects(connect(secured.base('vip'), { cardTrust: nextOnly, cache: false }), {
      code: 'CARD_UNTRUSTED',
    })
    const rotated = await startA2a({
      agents: [vip],
      cardSigning: {
        keys: [
          { kid: 'k2', privateKey: pem(edKey.privateKey) },
          { kid: 'k1', privateKey: pem(ecKey.privateKey) },
        ],
      },
    })
    try {
      const agent = await connect(rotated.base('vip'), { cardTrust: nextOnly, cache: false })
      assert.equal(agent.discovery.a2a?.signedBy, 'k2')
    } finally {
      await rotated.close()
    }
  })

  it('is still read by @a2a-js/sdk, signatures and all', async () => {
    const signedOpen = await startA2a({
      agents: [vip],
      cardSigning: { keys: [{ kid: 'k1', privateKey: pem(ecKey.privateKey) }] },
    })
    try {
      const client = await sdkClient(signedOpen.base('vip'), 'JSONRPC')
      const card = await client.getAgentCard()
      assert.equal(card.name, 'VIP')
      assert.equal(card.signatures.length, 1)
      assert.equal(
        card.signatures[0]!.protected,
        (await cardAt(signedOpen.base('vip'))).body.signatures[0].protected,
      )
    } finally {
      await signedOpen.close()
    }
  })

  it('refuses keys it cannot sign with when the server starts', async () => {
    const publicPem = ecKey.publicKey.export({ type: 'spki', format: 'pem' }) as string
    await assert.rejects(
      loadCardSigning({ keys: [{ privateKey: publicPem }] }, () => ''),
      /not a private key/,
    )
    await assert.rejects(
      loadCardSigning({ keys: [{ privateKey: pem(ecKey.privateKey), alg: 'RS256' }] }, () => ''),
      /cannot sign with RS256/,
    )
    await assert.rejects(
      loadCardSigning({ keys: [] }, () => ''),
      /at least one key/,
    )
    const derived = await loadCardSigning({ keys: [{ privateKey: pem(edKey.privateKey) }] }, () => '')
    assert.equal(derived.jwks.keys[0]!.alg, 'EdDSA')
    assert.match(derived.jwks.keys[0]!.kid!, /^[A-Za-z0-9_-]{43}$/, 'the kid defaults to the JWK thumbprint')
  })
})
