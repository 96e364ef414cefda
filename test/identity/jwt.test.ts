import assert from 'node:assert/strict'
import { createPublicKey } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it, mock } from 'node:test'
import { exportSPKI, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose'
import { jwtFlags } from '../../src/cli/serve-flags/jwt.ts'
import { authenticate } from '../../src/identity/authenticate.ts'
import { jwtAuthenticator } from '../../src/identity/jwt.ts'
import type { SwitchboardError } from '../../src/model/errors.ts'
import { instantAgent } from '../helpers/agents.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import {
  AUDIENCE,
  bearer,
  ISSUER,
  type JwksServer,
  type SigningKey,
  secondsFromNow,
  signingKey,
  startJwksServer,
  tokenFor,
} from './jwt-helpers.ts'

describe('JWT bearer authentication against a JWKS URL', () => {
  let key: SigningKey
  let jwks: JwksServer
  let server: TestServer
  let base: string

  before(async () => {
    key = await signingKey('k1')
    jwks = await startJwksServer([key.publicJwk])
    const jwt = jwtAuthenticator({
      jwksUrl: jwks.url,
      issuer: ISSUER,
      audience: AUDIENCE,
      tenantClaim: 'org',
    })
    server = await startServer({ agents: [instantAgent], identity: { authenticators: [jwt] } })
    base = `${server.url}/agents/instant`
  })
  after(async () => {
    await server.close()
    await jwks.close()
  })

  const refusal = async (token: string) => {
    const created = await request(`${base}/tasks`, { body: { input: {} }, headers: bearer(token) })
    assert.equal(created.status, 401)
    assert.equal(created.body.error.code, 'UNAUTHENTICATED')
    assert.equal(created.headers.get('www-authenticate'), 'Bearer realm="switchboard"')
    assert.ok(!JSON.stringify(created.body).includes(token), 'the refusal quotes the token')
    return created.body.error.message as string
  }

  it('accepts a valid token: the caller sees its own task, another subject or tenant gets 404', async () => {
    const alice = await tokenFor(key, { sub: 'alice', org: 'acme' })
    const created = await request(`${base}/tasks`, { body: { input: { n: 1 } }, headers: bearer(alice) })
    assert.equal(created.status, 202, JSON.stringify(created.body))
    const id = created.body.task_id as string
    assert.equal((await request(`${base}/tasks/${id}`, { headers: bearer(alice) })).status, 200)
    for (const other of [
      { sub: 'bob', org: 'acme' },
      { sub: 'alice', org: 'globex' },
    ]) {
      const seen = await request(`${base}/tasks/${id}`, { headers: bearer(await tokenFor(key, other)) })
      assert.equal(seen.status, 404, JSON.stringify(other))
      assert.equal(seen.body.error.code, 'TASK_NOT_FOUND')
    }
    assert.equal((await request(`${base}/tasks/${id}`)).status, 401, 'no credential')
  })

  it('refuses a bad token with 401 and a reason that never quotes it', async () => {
    const impostor = { ...(await signingKey('k1')), kid: 'k1' }
    const claims = { sub: 'alice', org: 'acme' }
    const cases: [string, string, RegExp][] = [
      ['wrong signature', await tokenFor(impostor, claims), /signature is not valid/],
      ['wrong issuer', await tokenFor(key, { ...claims, iss: 'https://evil.example' }), /issuer/],
      ['wrong audience', await tokenFor(key, { ...claims, aud: 'another-service' }), /audience/],
      ['expired', await tokenFor(key, { ...claims, exp: secondsFromNow(-120) }), /expired/],
      ['not yet valid', await tokenFor(key, { ...claims, nbf: secondsFromNow(120) }), /not valid yet/],
      ['no tenant claim', await tokenFor(key, { sub: 'alice' }), /"org" claim is missing/],
      ['no subject', await tokenFor(key, { org: 'acme' }), /"sub" claim is missing/],
    ]
    for (const [what, token, reason] of cases) assert.match(await refusal(token), reason, what)
  })

  it('tolerates clock skew within the tolerance (30 s by default); 120 s is refused above', async () => {
    const claims = { sub: 'alice', org: 'acme' }
    const barelyExpired = await tokenFor(key, { ...claims, exp: secondsFromNow(-10) })
    const almostValid = await tokenFor(key, { ...claims, nbf: secondsFromNow(10) })
    for (const token of [barelyExpired, almostValid])
      assert.equal(
        (await request(`${base}/tasks`, { body: { input: {} }, headers: bearer(token) })).status,
        202,
      )
  })

  it('refuses alg none, and an HS256 token signed with the public key (algorithm confusion)', async () => {
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', org: 'acme', exp: secondsFromNow(600) }
    const unsecured = new UnsecuredJWT(claims).encode()
    assert.match(await refusal(unsecured), /algorithm is not accepted/)
    const publicPem = createPublicKey({ key: key.publicJwk, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    })
    const confused = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(publicPem as string))
    assert.match(await refusal(confused), /algorithm is not accepted/)
  })

  it('leaves a bearer that is not a JWT (an API key) to other authenticators', async () => {
    const jwt = jwtAuthenticator({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE })
    for (const token of ['sbk_0123456789abcdef', 'a.b', 'not.a.jwt!', 'eyJhbGciOiJSUzI1NiJ9.e30'])
      assert.equal(await jwt.authenticate({ headers: bearer(token) }), undefined, token)
    assert.equal(await jwt.authenticate({ headers: {} }), undefined)
  })
})

describe('JWKS rotation', () => {
  it('refetches the JWKS for an unknown kid at most once per cooldown, then accepts the rotated key', async (t) => {
    const k1 = await signingKey('k1')
    const k2 = await signingKey('k2', 'ES256')
    const jwks = await startJwksServer([k1.publicJwk])
    t.after(() => jwks.close())
    mock.timers.enable({ apis: ['Date'], now: Date.now() })
    t.after(() => mock.timers.reset())
    const jwt = jwtAuthenticator({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE })
    const caller = await jwt.authenticate({ headers: bearer(await tokenFor(k1, { sub: 'alice' })) })
    assert.equal(caller?.principal, 'alice')
    assert.equal(jwks.fetches, 1)

    // The provider rotates to k2. Within the cooldown the cached set is kept, whatever the kid.
    jwks.keys = [k1.publicJwk, k2.publicJwk]
    const rotated = await tokenFor(k2, { sub: 'alice' })
    for (let i = 0; i < 20; i++) {
      await assert.rejects(
        jwt.authenticate({
          headers: bearer(await tokenFor(k1, { sub: 'mallory' }, { kid: `made-up-${i}` })),
        }),
        /no known key matches/,
      )
    }
    await assert.rejects(jwt.authenticate({ headers: bearer(rotated) }), /no known key matches/)
    assert.equal(jwks.fetches, 1, 'unknown kids within the cooldown fetch nothing')

    mock.timers.tick(31_000)
    const after = await jwt.authenticate({ headers: bearer(rotated) })
    assert.equal(after?.principal, 'alice')
    assert.equal(jwks.fetches, 2, 'one refetch after the cooldown')
    await jwt.authenticate({ headers: bearer(rotated) })
    assert.equal(jwks.fetches, 2, 'the rotated set is cached')
  })
})

describe('JWKS unreachable', () => {
  it('refuses with 401 "could not be checked", not as a bad token', async () => {
    const jwks = await startJwksServer([])
    await jwks.close() // nothing listens on its port any more
    const key = await signingKey('k1')
    const jwt = jwtAuthenticator({
      jwksUrl: jwks.url,
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksTimeoutMs: 1000,
    })
    await assert.rejects(
      authenticate({ authenticators: [jwt] }, { headers: bearer(await tokenFor(key, { sub: 'alice' })) }),
      (error: SwitchboardError) =>
        error.code === 'UNAUTHENTICATED' && /could not be checked/.test(error.message),
    )
  })
})

describe('JWT claims mapping and static keys', () => {
  it('maps the principal, tenant and scopes claims as configured', async () => {
    const key = await signingKey('k1', 'ES256')
    const keys = { keys: [key.publicJwk] }
    const base = { keys, issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'] }
    const identity = async (options: object, claims: JWTPayload) =>
      jwtAuthenticator({ ...base, ...options }).authenticate({ headers: bearer(await tokenFor(key, claims)) })

    const plain = await identity({}, { sub: 'alice', scope: 'tasks:read:tenant admin' })
    assert.deepEqual(
      { principal: plain?.principal, tenant: plain?.tenant, scopes: plain?.scopes, method: plain?.method },
      { principal: 'alice', tenant: 'default', scopes: ['tasks:read:tenant', 'admin'], method: 'jwt' },
    )
    assert.equal(plain?.claims?.sub, 'alice')
    assert.deepEqual((await identity({}, { sub: 'a', scp: ['x', 'y'] }))?.scopes, ['x', 'y'])
    assert.deepEqual((await identity({}, { sub: 'a' }))?.scopes, [])
    assert.equal((await identity({ tenant: 'fixed' }, { sub: 'a' }))?.tenant, 'fixed')

    const mapped = await identity(
      { principalClaim: 'email', tenantClaim: 'org', scopesClaim: 'roles' },
      { sub: 'x', email: 'alice@acme.example', org: 'acme', roles: ['tasks:write:tenant'], scope: 'ignored' },
    )
    assert.deepEqual(
      [mapped?.principal, mapped?.tenant, mapped?.scopes],
      ['alice@acme.example', 'acme', ['tasks:write:tenant']],
    )
    await assert.rejects(
      identity({ scopesClaim: 'roles' }, { sub: 'a', roles: 7 }),
      /"roles" claim is neither/,
    )
  })

  it('verifies with a PEM public key, ignoring the kid; a token without exp is refused', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true })
    const jwt = jwtAuthenticator({
      keys: await exportSPKI(publicKey),
      issuer: ISSUER,
      audience: AUDIENCE,
    })
    const key: SigningKey = { kid: 'whatever', alg: 'EdDSA', privateKey, publicJwk: {} }
    assert.equal(
      (await jwt.authenticate({ headers: bearer(await tokenFor(key, { sub: 'eve' })) }))?.principal,
      'eve',
    )
    const noExpiry = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'eve' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .sign(privateKey)
    await assert.rejects(jwt.authenticate({ headers: bearer(noExpiry) }), /no valid expiry/)
  })

  it('refuses unsafe settings when built', () => {
    const keys = { keys: [] }
    assert.throws(() => jwtAuthenticator({ keys, issuer: '', audience: AUDIENCE }), /needs an issuer/)
    assert.throws(() => jwtAuthenticator({ keys, issuer: ISSUER, audience: [] }), /needs an audience/)
    for (const alg of ['none', 'HS256'])
      assert.throws(
        () => jwtAuthenticator({ keys, issuer: ISSUER, audience: AUDIENCE, algorithms: [alg] }),
        new RegExp(`"${alg}" is not accepted`),
      )
    assert.throws(
      () => jwtAuthenticator({ keys, issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 301 }),
      /from 0 to 300/,
    )
    assert.throws(
      () => jwtAuthenticator({ jwksUrl: 'http://idp.example/jwks', issuer: ISSUER, audience: AUDIENCE }),
      /must use https/,
    )
  })
})

describe('serve --jwt-* flags', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file = {}) =>
    jwtFlags.resolve({ flags, env, file })
  const url = 'https://idp.example/.well-known/jwks.json'

  it('build a JWT authenticator from flags, environment or the config file, and nothing when unset', async () => {
    assert.deepEqual(await resolve({}), {})
    for (const options of [
      await resolve({ jwtJwksUrl: url, jwtIssuer: ISSUER, jwtAudience: AUDIENCE }),
      await resolve(
        {},
        { SWITCHBOARD_JWT_JWKS_URL: url, SWITCHBOARD_JWT_ISSUER: ISSUER, SWITCHBOARD_JWT_AUDIENCE: AUDIENCE },
      ),
      await resolve({}, {}, { auth: { jwt: { jwksUrl: url, issuer: [ISSUER], audience: [AUDIENCE] } } }),
    ]) {
      assert.equal(options.identity?.authenticators?.[0]?.name, 'jwt')
    }
  })

  it('refuse a JWT setup without issuer or audience, or with a bad value, naming the flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-jwt-'))
    const keyFile = join(dir, 'key.pem')
    writeFileSync(keyFile, 'not a key')
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ jwtJwksUrl: url, jwtAudience: AUDIENCE }, /needs --jwt-issuer/],
      [{ jwtJwksUrl: url, jwtIssuer: ISSUER }, /needs --jwt-audience/],
      [{ jwtIssuer: ISSUER }, /--jwt-issuer needs --jwt-jwks-url or --jwt-key-file/],
      [
        { jwtJwksUrl: url, jwtKeyFile: keyFile, jwtIssuer: ISSUER, jwtAudience: AUDIENCE },
        /exclude each other/,
      ],
      [
        { jwtJwksUrl: url, jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtAlgorithms: 'RS256,HS256' },
        /--jwt-algorithms: .*"HS256"/,
      ],
      [
        { jwtJwksUrl: url, jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtClockTolerance: '600' },
        /--jwt-clock-tolerance: /,
      ],
      [
        { jwtJwksUrl: url, jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtClockTolerance: 'soon' },
        /--jwt-clock-tolerance .*number/,
      ],
      [
        { jwtJwksUrl: 'http://idp.example/jwks', jwtIssuer: ISSUER, jwtAudience: AUDIENCE },
        /--jwt-jwks-url: .*https/,
      ],
      [
        { jwtKeyFile: keyFile, jwtIssuer: ISSUER, jwtAudience: AUDIENCE },
        /--jwt-key-file: .*neither a JWKS nor a PEM/,
      ],
      [
        { jwtKeyFile: join(dir, 'missing'), jwtIssuer: ISSUER, jwtAudience: AUDIENCE },
        /--jwt-key-file: cannot read/,
      ],
    ]
    for (const [flags, message] of cases) await assert.rejects(async () => resolve(flags), message)
    await assert.rejects(async () => resolve({}, {}, { auth: { jwt: { jwksUrl: 7 } } }), /auth\.jwt\.jwksUrl/)
  })
})
