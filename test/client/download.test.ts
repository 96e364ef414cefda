/**
 * Artifact downloads: the SSRF guard (private and loopback refused unless allowed, except the
 * agent's own origin; every redirect hop vetted), the size cap whatever the headers say, and
 * streaming to disk with nothing left behind on failure.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { OriginCredentials } from '../../src/client/credentials.ts'
import { fromNetworkError } from '../../src/client/errors.ts'
import {
  ClientError,
  connect,
  downloadArtifact,
  type RemoteArtifact,
  type TaskHandle,
} from '../../src/client.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { stubServer } from './helpers.ts'

/** Links to whatever URL it is given, and writes a file of the size asked for. */
const linker = defineAgent({
  id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
  slug: 'linker',
  name: 'Linker',
  description: 'Publishes a link artifact and a file of a given size, for download tests.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' }, bytes: { type: 'integer' } } },
  async handler(input, ctx) {
    if (typeof input.url === 'string')
      await ctx.artifact({ type: 'url', name: 'link', url: input.url, filename: 'linked.txt' })
    if (typeof input.bytes === 'number') {
      await ctx.artifact({
        type: 'file',
        filename: 'big.bin',
        mediaType: 'application/octet-stream',
        bytes: Buffer.alloc(input.bytes, 7),
      })
    }
    return {}
  },
})

let server: TestServer
let secret: Awaited<ReturnType<typeof stubServer>>
let dir: string
before(async () => {
  server = await startServer({ agents: [linker] })
  secret = await stubServer(() => ({
    status: 200,
    headers: { 'content-type': 'text/plain' },
    body: 'internal secret',
  }))
  dir = mkdtempSync(join(tmpdir(), 'switchboard-download-'))
})
after(async () => {
  await server.close()
  await secret.close()
  rmSync(dir, { recursive: true, force: true })
})

const run = async (
  input: Record<string, unknown>,
  kind: 'clawpedia' | 'jsonrpc' | 'rest' = 'clawpedia',
): Promise<TaskHandle> => {
  const task = await (await connect(`${server.url}/agents/linker`, { prefer: [kind] })).send(input)
  assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
  return task
}

const refused = (error: unknown) => {
  assert.ok(error instanceof ClientError, String(error))
  assert.equal(error.code, 'URL_NOT_ALLOWED', error.message)
  return true
}

const leftovers = () => readdirSync(dir).filter((name) => name.endsWith('.part'))

describe('the SSRF guard', () => {
  it("trusts the agent's own origin, refuses another loopback port unless allowPrivate", async () => {
    const task = await run({ url: `${secret.url}/admin`, bytes: 10 })
    const artifacts = await task.artifacts()
    const file = artifacts.find((a) => a.type === 'file')!
    const own = await task.download(file, { to: dir })
    assert.equal(own.bytes, 10, 'the content endpoint of the agent itself is fine')

    const link = artifacts.find((a) => a.type === 'url')!
    const hitsBefore = secret.hits.length
    await assert.rejects(task.download(link, { to: dir }), refused)
    assert.equal(secret.hits.length, hitsBefore, 'no request reached the private address')
    const allowed = await task.download(link, { to: dir, allowPrivate: true })
    assert.equal(readFileSync(allowed.path, 'utf8'), 'internal secret')
    assert.equal(allowed.path, join(dir, 'linked.txt'))
    const byName = await task.download(link, { to: join(dir, 'chosen.txt'), allow: ['127.0.0.1'] })
    assert.equal(readFileSync(byName.path, 'utf8'), 'internal secret')
  })

  it('refuses the metadata address and non-http schemes without connecting', async () => {
    const context = { trustedOrigins: [], timeoutMs: 2000 }
    const link = (url: string): RemoteArtifact => ({ id: 'a', type: 'url', url })
    await assert.rejects(
      downloadArtifact(link('http://169.254.169.254/latest/meta-data/'), { to: dir }, context),
      refused,
    )
    await assert.rejects(downloadArtifact(link('file:///etc/passwd'), { to: dir }, context), refused)
    await assert.rejects(downloadArtifact(link('http://[::1]:9/'), { to: dir }, context), refused)
  })

  it('vets every redirect hop: a trusted origin cannot bounce the download to a private one', async () => {
    const bouncer = await stubServer(() => ({ status: 302, headers: { location: `${secret.url}/bounced` } }))
    try {
      const context = {
        trustedOrigins: [bouncer.url],
        credentials: new OriginCredentials(bouncer.url, { credentials: { bearer: 'agent-only' } }),
        timeoutMs: 2000,
      }
      const link: RemoteArtifact = {
        id: 'b',
        type: 'url',
        url: `${bouncer.url}/file`,
        filename: 'bounced.txt',
      }
      const hitsBefore = secret.hits.length
      await assert.rejects(downloadArtifact(link, { to: dir }, context), refused)
      assert.equal(secret.hits.length, hitsBefore)
      const saved = await downloadArtifact(link, { to: dir, allowPrivate: true }, context)
      assert.equal(readFileSync(saved.path, 'utf8'), 'internal secret')
      assert.equal(
        bouncer.hits.at(-1)?.headers.authorization,
        'Bearer agent-only',
        'credentials go to the agent origin',
      )
      assert.equal(secret.hits.at(-1)?.headers.authorization, undefined, '…and never to another host')
    } finally {
      await bouncer.close()
    }
  })
})

describe('DNS', () => {
  it('a host that does not resolve is a DNS error naming it, over every dialect, not a refusal', async () => {
    const host = 'files.example.invalid'
    for (const kind of ['clawpedia', 'jsonrpc', 'rest'] as const) {
      const url = `http://${host}/report.csv`
      const task = await run({ url }, kind)
      // A2A shows a link with a filename as a file part; Clawpedia as a url artifact.
      const link = (await task.artifacts()).find((a) => 'url' in a && a.url === url)!
      await assert.rejects(task.download(link, { to: dir }), (error: unknown) => {
        assert.ok(error instanceof ClientError, String(error))
        assert.equal(error.code, 'CONNECTION_FAILED', error.message)
        assert.match(
          error.message,
          /the host "files\.example\.invalid" could not be resolved \(no such host, ENOTFOUND\)/,
        )
        assert.deepEqual(error.details, { cause: 'ENOTFOUND', host })
        assert.equal(error.unreachable, true)
        return true
      })
    }
    assert.deepEqual(leftovers(), [])
  })

  it('a temporary DNS failure says so', () => {
    const lookup = Object.assign(new Error('getaddrinfo EAI_AGAIN files.example.com'), {
      code: 'EAI_AGAIN',
      hostname: 'files.example.com',
    })
    const error = fromNetworkError(
      new TypeError('fetch failed', { cause: lookup }),
      'GET https://files.example.com/a',
    )
    assert.equal(error.code, 'CONNECTION_FAILED')
    assert.equal(
      error.message,
      'GET https://files.example.com/a: the host "files.example.com" could not be resolved (a temporary DNS failure, EAI_AGAIN)',
    )
    assert.equal(error.unreachable, true)
  })
})

describe('size and streaming', () => {
  it('refuses a file over maxBytes (declared length), over either dialect, and leaves nothing behind', async () => {
    for (const kind of ['clawpedia', 'jsonrpc'] as const) {
      const task = await run({ bytes: 300_000 }, kind)
      const file = (await task.artifacts()).find((a) => a.type === 'file')!
      await assert.rejects(task.download(file, { to: join(dir, `capped-${kind}.bin`), maxBytes: 100_000 }), {
        code: 'PAYLOAD_TOO_LARGE',
      })
      const saved = await task.download(file, { to: join(dir, `whole-${kind}.bin`), maxBytes: 300_000 })
      assert.equal(saved.bytes, 300_000)
    }
    assert.deepEqual(leftovers(), [])
    assert.ok(!readdirSync(dir).some((name) => name.startsWith('capped-')))
  })

  it('counts what arrives when no length is declared, and streams large bodies to disk intact', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const chunks = 320 // 20 MiB
    const { createServer } = await import('node:http')
    const big = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      let sent = 0
      const pump = () => {
        while (sent < chunks) {
          sent += 1
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      pump()
    }).listen(0, '127.0.0.1')
    await new Promise((resolve) => big.once('listening', resolve))
    const url = `http://127.0.0.1:${(big.address() as { port: number }).port}/big`
    try {
      const context = { trustedOrigins: [new URL(url).origin], timeoutMs: 5000 }
      const link: RemoteArtifact = { id: 'c', type: 'url', url, filename: 'stream.bin' }
      await assert.rejects(downloadArtifact(link, { to: dir, maxBytes: 1024 * 1024 }, context), {
        code: 'PAYLOAD_TOO_LARGE',
      })
      assert.deepEqual(leftovers(), [])
      assert.ok(!readdirSync(dir).includes('stream.bin'))
      const saved = await downloadArtifact(link, { to: dir }, context)
      assert.equal(saved.bytes, chunk.length * chunks)
      const expected = createHash('sha256')
      for (let i = 0; i < chunks; i++) expected.update(chunk)
      assert.equal(
        createHash('sha256').update(readFileSync(saved.path)).digest('hex'),
        expected.digest('hex'),
      )
    } finally {
      big.closeAllConnections()
      big.close()
    }
  })
})
