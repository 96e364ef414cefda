/** Card signing and card trust as configured: the serve flag group, the client flags, the documented codes. */
import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { connectOptionsOf } from '../../src/cli/args.ts'
import { cardSigningFlags } from '../../src/cli/serve-flags/card-signing.ts'
import { CLIENT_ERROR_CODES } from '../../src/client/errors.ts'

const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const edKey = generateKeyPairSync('ed25519')
const pem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }) as string

describe('configuration', () => {
  it('serve: key files from the flag (repeated or a list) with their kids, else the environment, else the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-keys-'))
    try {
      const first = join(dir, 'first.pem')
      const second = join(dir, 'second.pem')
      writeFileSync(first, pem(ecKey.privateKey))
      writeFileSync(second, pem(edKey.privateKey))
      const resolve = async (flags: Record<string, unknown>, env: Record<string, string> = {}, file = {}) =>
        cardSigningFlags.resolve({ flags, env, file })
      const both = await resolve(
        { cardSigningKey: [`${first},${second}`], cardSigningKid: ['new'] },
        { SWITCHBOARD_CARD_SIGNING_KEYS: second },
      )
      assert.deepEqual(
        both.cardSigning?.keys.map((k) => k.kid),
        ['new', undefined],
      )
      assert.equal(both.cardSigning?.keys[0]?.privateKey, pem(ecKey.privateKey))
      const fromEnv = await resolve({}, { SWITCHBOARD_CARD_SIGNING_KEYS: second })
      assert.equal(fromEnv.cardSigning?.keys[0]?.privateKey, pem(edKey.privateKey))
      const fromFile = await resolve(
        {},
        {},
        { cardSigning: { keys: [{ file: first, kid: 'f', alg: 'ES256' }] } },
      )
      assert.deepEqual(fromFile.cardSigning?.keys[0], {
        privateKey: pem(ecKey.privateKey),
        kid: 'f',
        alg: 'ES256',
      })
      assert.deepEqual(await resolve({}), {}, 'off unless configured')
      await assert.rejects(
        resolve({ cardSigningKey: [join(dir, 'missing.pem')] }),
        /--card-signing-key: cannot read/,
      )
      writeFileSync(
        join(dir, 'public.pem'),
        ecKey.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      )
      await assert.rejects(
        resolve({ cardSigningKey: [join(dir, 'public.pem')] }),
        /--card-signing-key: .*not a private key/,
      )
      await assert.rejects(
        resolve({}, {}, { cardSigning: { keys: [{ file: first, alg: 'HS256' }] } }),
        /cardSigning.keys\[0\].alg must be one of/,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('client commands: --trust-jwks and --require-signed-card become cardTrust', () => {
    const jwksUrl = 'https://agents.example.com/.well-known/jwks.json'
    assert.deepEqual(
      connectOptionsOf('https://agents.example.com/agents/a', { trustJwks: jwksUrl, requireSignedCard: true })
        .cardTrust,
      {
        jwksUrl,
        requireSignature: true,
      },
    )
    assert.equal(connectOptionsOf('https://agents.example.com/agents/a', {}).cardTrust, undefined)
    assert.throws(
      () => connectOptionsOf('https://agents.example.com/agents/a', { requireSignedCard: true }),
      /needs --trust-jwks/,
    )
    assert.throws(
      () => connectOptionsOf('https://agents.example.com/agents/a', { trustJwks: 'not a url' }),
      /--trust-jwks/,
    )
  })

  it('docs/client.md names every client error code, CARD_UNTRUSTED included', () => {
    const doc = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8')
    for (const code of Object.keys(CLIENT_ERROR_CODES)) assert.ok(doc.includes(`\`${code}\``), code)
  })
})
