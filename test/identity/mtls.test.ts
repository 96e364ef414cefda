import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { PeerCertificate } from 'node:tls'
import { tlsFlags } from '../../src/cli/serve-flags/tls.ts'
import { mtlsAuthenticator } from '../../src/identity/mtls.ts'
import { instantAgent } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { createPki, httpsJson, type Pki } from './pki.ts'

const CLIENT = 'extendedKeyUsage=clientAuth'

describe('TLS and mutual TLS', () => {
  let pki: Pki
  let ca: string
  let server: TestServer
  let base: string
  const client = (name: string) => ({
    cert: pki.read(`${pki.dir}/${name}.pem`),
    key: pki.read(`${pki.dir}/${name}.key`),
  })

  before(async () => {
    pki = createPki()
    const caPath = pki.ca('test-ca')
    const otherCa = pki.ca('other-ca')
    ca = pki.read(caPath)
    const serverCert = pki.issue({
      ca: caPath,
      name: 'server',
      subject: '/CN=127.0.0.1',
      extensions: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth',
    })
    pki.issue({ ca: caPath, name: 'alice', subject: '/O=Acme/CN=alice', extensions: CLIENT })
    pki.issue({ ca: caPath, name: 'bob', subject: '/O=Acme/CN=bob', extensions: CLIENT })
    pki.issue({ ca: otherCa, name: 'forged-alice', subject: '/O=Acme/CN=alice', extensions: CLIENT })
    server = await startServer({
      agents: [instantAgent],
      tls: {
        cert: pki.read(serverCert.cert),
        key: pki.read(serverCert.key),
        clientCa: ca,
        clientTenant: 'acme',
      },
    })
    base = `${server.url}/agents/instant`
  })
  after(async () => {
    await server.close()
    pki.remove()
  })

  it('serves HTTPS, and its public URL says so', () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/)
  })

  it("a client certificate from the CA authenticates its subject's CN: its task is its own", async () => {
    const created = await httpsJson(`${base}/tasks`, { ca, ...client('alice'), body: { input: {} } })
    assert.equal(created.status, 202, JSON.stringify(created.body))
    const id = created.body.task_id as string
    assert.equal((await httpsJson(`${base}/tasks/${id}`, { ca, ...client('alice') })).status, 200)
    const bob = await httpsJson(`${base}/tasks/${id}`, { ca, ...client('bob') })
    assert.equal(bob.status, 404)
    assert.equal(bob.body.error.code, 'TASK_NOT_FOUND')
  })

  it('without a certificate: 401 (the handshake completes, another authenticator could have answered)', async () => {
    const response = await httpsJson(`${base}/tasks`, { ca, body: { input: {} } })
    assert.equal(response.status, 401)
    assert.equal(response.body.error.code, 'UNAUTHENTICATED')
  })

  it('a certificate from another CA, even with the same subject: 401, it is never handed to authenticators', async () => {
    const forged = await httpsJson(`${base}/tasks`, { ca, ...client('forged-alice'), body: { input: {} } })
    assert.equal(forged.status, 401)
    assert.equal(forged.body.error.code, 'UNAUTHENTICATED')
  })

  it('the authenticator maps CN, or the whole subject when there is no CN, and the certificate fields', async () => {
    const caPath = `${pki.dir}/test-ca.pem`
    const noCn = pki.issue({ ca: caPath, name: 'no-cn', subject: '/O=Acme/OU=Robots', extensions: CLIENT })
    const peer = (path: string): PeerCertificate => {
      const x509 = new X509Certificate(pki.read(path))
      const subject = Object.fromEntries(x509.subject.split('\n').map((line) => line.split('=')))
      return { subject, raw: x509.raw } as unknown as PeerCertificate
    }
    const mtls = mtlsAuthenticator()
    const alice = await mtls.authenticate({ headers: {}, peerCertificate: peer(`${pki.dir}/alice.pem`) })
    assert.equal(alice?.principal, 'alice')
    assert.equal(alice?.tenant, 'default')
    assert.equal(alice?.method, 'mtls')
    assert.equal(alice?.claims?.subject, 'O=Acme, CN=alice')
    assert.equal(alice?.claims?.issuer, 'O=Switchboard tests, CN=test-ca')
    assert.match(String(alice?.claims?.serial), /^[0-9A-F]+$/)
    assert.match(String(alice?.claims?.fingerprint256), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
    const robot = await mtls.authenticate({ headers: {}, peerCertificate: peer(noCn.cert) })
    assert.equal(robot?.principal, 'O=Acme, OU=Robots')
    assert.equal(await mtls.authenticate({ headers: {} }), undefined)
    assert.deepEqual(mtls.securityScheme, { mtlsSecurityScheme: {} })
  })

  it('serve --tls-* flags read the files, and refuse half a configuration', async () => {
    const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file = {}) =>
      tlsFlags.resolve({ flags, env, file })
    const cert = `${pki.dir}/server.pem`
    const key = `${pki.dir}/server.key`
    const clientCa = `${pki.dir}/test-ca.pem`
    const options = await resolve({}, {}, { tls: { cert, key, clientCa } })
    assert.equal(options.tls?.cert, pki.read(cert))
    assert.equal(options.tls?.clientCa, ca)
    assert.deepEqual(await resolve({}), {})
    assert.deepEqual(await resolve({ insecureNoAuth: true }), { insecureNoAuth: true })
    assert.deepEqual(await resolve({}, { SWITCHBOARD_INSECURE_NO_AUTH: '1' }), { insecureNoAuth: true })
    const cases: [Record<string, unknown>, NodeJS.ProcessEnv, RegExp][] = [
      [{ tlsCert: cert }, {}, /--tls-cert and --tls-key go together/],
      [{ clientCa }, {}, /--client-ca needs --tls-cert/],
      [{ tlsCert: cert, tlsKey: `${pki.dir}/missing.key` }, {}, /--tls-key: cannot read/],
      [{}, { SWITCHBOARD_INSECURE_NO_AUTH: 'yes' }, /SWITCHBOARD_INSECURE_NO_AUTH must be 1 or 0/],
    ]
    for (const [flags, env, message] of cases) await assert.rejects(async () => resolve(flags, env), message)
  })
})
