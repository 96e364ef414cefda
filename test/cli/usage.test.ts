/**
 * The `switchboard` binary's usage: help with exit codes and examples (0), command-line mistakes
 * (2), an unreachable agent (3), an error answer (4).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { freePort } from '../client/helpers.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { cli } from './helpers.ts'

let server: TestServer
const at = (slug: string) => `${server.url}/agents/${slug}`
before(async () => {
  server = await startServer()
})
after(() => server.close())

describe('usage', () => {
  it('--help lists the commands, the exit codes and examples (exit 0); mistakes exit 2', async () => {
    const [help, sendHelp, noUrl, noInput, both, badJson, badPrefer, unknown, badUrl] = await Promise.all([
      cli(['--help']),
      cli(['send', '--help']),
      cli(['send']),
      cli(['send', at('long-runner')]),
      cli(['send', at('long-runner'), '--input', '{}', '--text', 'x']),
      cli(['send', at('long-runner'), '--input', '{not json']),
      cli(['card', at('long-runner'), '--prefer', 'soap']),
      cli(['send', at('long-runner'), '--input', '{}', '--bogus']),
      cli(['card', 'ftp://example.org']),
    ])
    assert.equal(help.code, 0)
    for (const word of ['send', 'watch', 'deliveries', 'Exit codes:', 'Examples:'])
      assert.ok(help.stdout.includes(word), word)
    assert.equal(sendHelp.code, 0)
    assert.match(sendHelp.stdout, /--follow/)
    assert.match(sendHelp.stdout, /5 {2}a followed task waits for input/)
    for (const [name, result] of Object.entries({
      noUrl,
      noInput,
      both,
      badJson,
      badPrefer,
      unknown,
      badUrl,
    })) {
      assert.equal(result.code, 2, `${name}: ${result.stderr}`)
      assert.notEqual(result.stderr, '', name)
    }
    assert.match(noInput.stderr, /exactly one of --input <json> or --text <message>/)
  })

  it('--version prints the package version (exit 0); an unknown command exits 2 naming it', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    const [printed, unknown] = await Promise.all([cli(['--version']), cli(['bogus'])])
    assert.equal(printed.code, 0, printed.stderr)
    assert.equal(printed.stdout.trim(), version)
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command 'bogus'/)
  })

  it('serve refuses a PostgreSQL pool size without PostgreSQL, or below 1 (exit 2, saying why)', async () => {
    const [withoutPostgres, zero] = await Promise.all([
      cli(['serve', '--pg-pool-size', '5', '--port', '0']),
      cli(['serve', '--store', 'postgres://postgres@127.0.0.1:1/none', '--pg-pool-size', '0', '--port', '0']),
    ])
    assert.equal(withoutPostgres.code, 2, withoutPostgres.stderr)
    assert.match(withoutPostgres.stderr, /--pg-pool-size needs a postgres:\/\/ store/)
    assert.equal(zero.code, 2, zero.stderr)
    assert.match(zero.stderr, /--pg-pool-size must be an integer of at least 1, got "0"/)
  })

  it('an unreachable agent exits 3; an error answer exits 4', async () => {
    const [unreachable, unknownTask] = await Promise.all([
      cli(['card', `http://127.0.0.1:${await freePort()}`]),
      cli(['get', at('long-runner'), '6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f', '--json']),
    ])
    assert.equal(unreachable.code, 3, unreachable.stderr)
    assert.match(unreachable.stderr, /ECONNREFUSED/)
    assert.equal(unknownTask.code, 4, unknownTask.stderr)
    assert.match(unknownTask.stderr, /no task/)
  })
})
