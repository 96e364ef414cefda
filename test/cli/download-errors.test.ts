/**
 * `switchboard artifacts --download` when a link cannot be fetched: a host that does not resolve
 * is a DNS error naming it, exit 3 (could not be reached); a URL the SSRF guard refuses keeps its
 * own answer, URL_NOT_ALLOWED, exit 4.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { EXIT } from '../../src/cli/exit-codes.ts'
import { connect } from '../../src/client.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { cli } from './helpers.ts'

/** Publishes a link to whatever URL it is given. */
const linker = defineAgent({
  id: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918',
  slug: 'linker',
  name: 'Linker',
  description: 'Publishes a link artifact to the URL it is given, for download tests.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  async handler(input, ctx) {
    await ctx.artifact({ type: 'url', name: 'link', url: input.url as string, filename: 'linked.txt' })
    return {}
  },
})

let server: TestServer
let dir: string
const base = () => `${server.url}/agents/linker`
before(async () => {
  server = await startServer({ agents: [linker] })
  dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-download-'))
})
after(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const taskLinkingTo = async (url: string): Promise<string> => {
  const task = await (await connect(base())).send({ url })
  assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
  return task.id
}

describe('artifacts --download failures', () => {
  for (const prefer of ['jsonrpc', 'rest', 'clawpedia']) {
    it(`a host that does not resolve: a DNS error naming it, exit 3 (${prefer})`, async () => {
      const id = await taskLinkingTo('http://files.example.invalid/report.csv')
      const result = await cli(['artifacts', base(), id, '--download', dir, '--prefer', prefer])
      assert.equal(result.code, EXIT.CONNECTION, result.stderr)
      assert.equal(EXIT.CONNECTION, 3)
      assert.match(
        result.stderr,
        /GET http:\/\/files\.example\.invalid\/report\.csv: the host "files\.example\.invalid" could not be resolved \(no such host, ENOTFOUND\)/,
      )
      assert.doesNotMatch(result.stderr, /not allowed/)
    })
  }

  it('a URL the outbound policy refuses keeps its own code: URL_NOT_ALLOWED, exit 4', async () => {
    const id = await taskLinkingTo('http://10.1.2.3/report.csv')
    const result = await cli(['artifacts', base(), id, '--download', dir, '--json'])
    assert.equal(result.code, EXIT.PROTOCOL, result.stderr)
    assert.match(result.stderr, /URL host "10\.1\.2\.3" is not allowed: 10\.1\.2\.3 is in the private range/)
  })
})
