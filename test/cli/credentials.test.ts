/**
 * The CLI's credentials against an authenticated server: --token, SWITCHBOARD_TOKEN, --api-key
 * with its header, the per-origin credentials file (refused when others may read it); exit 7
 * when credentials are missing or refused, exit 6 with the agent's message at AUTH_REQUIRED; and
 * no credential ever printed.
 */
import assert from 'node:assert/strict'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask } from '../../src/client.ts'
import { type SdkAgent, startSdkAgent } from '../client/sdk-agent.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { TestAuthenticator } from '../helpers/test-authenticator.ts'
import { type CliResult, cli, json } from './helpers.ts'

const SECRET = 'sekrit-token-value'

let server: TestServer
let sdk: SdkAgent
let dir: string
let agent: string
before(async () => {
  server = await startServer({
    identity: { authenticators: [new TestAuthenticator({ tokens: [SECRET], apiKeys: [SECRET] })] },
  })
  sdk = await startSdkAgent({ bearer: SECRET })
  dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-creds-'))
  agent = `${server.url}/agents/long-runner`
})
after(async () => {
  await server.close()
  await sdk.close()
  rmSync(dir, { recursive: true, force: true })
})

const SEND = ['--input', '{"steps":1,"step_ms":1}', '--wait', '--json']

/** Nothing the CLI printed contains a credential, whatever happened. */
const leaksNothing = (result: CliResult, ...secrets: string[]) => {
  for (const secret of [SECRET, ...secrets]) {
    assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), `${secret} was printed`)
  }
}

describe('credentials on the command line', () => {
  it('none: exit 7 with the server message; --token and SWITCHBOARD_TOKEN: the task completes', async () => {
    const [none, flag, env] = await Promise.all([
      cli(['send', agent, ...SEND]),
      cli(['send', agent, ...SEND, '--token', SECRET]),
      cli(['send', agent, ...SEND], { env: { SWITCHBOARD_TOKEN: SECRET } }),
    ])
    assert.equal(none.code, 7, none.stderr)
    assert.match(none.stderr, /needs credentials/)
    for (const ok of [flag, env]) {
      assert.equal(ok.code, 0, ok.stderr)
      assert.equal(json<RemoteTask>(ok).state, 'COMPLETED')
      leaksNothing(ok)
    }
  })

  it('a wrong token: exit 7, and neither token is printed, not even with --json', async () => {
    const wrong = await cli(['send', agent, ...SEND, '--token', 'wrong-sekrit'])
    assert.equal(wrong.code, 7, wrong.stderr)
    assert.match(wrong.stderr, /bearer token is not valid/)
    leaksNothing(wrong, 'wrong-sekrit')
  })

  it('--api-key in X-API-Key by default; --api-key-header moves it', async () => {
    const [keyed, elsewhere] = await Promise.all([
      cli(['send', agent, ...SEND, '--api-key', SECRET]),
      cli(['send', agent, ...SEND, '--api-key', SECRET, '--api-key-header', 'X-Other-Key']),
    ])
    assert.equal(keyed.code, 0, keyed.stderr)
    assert.equal(elsewhere.code, 7, elsewhere.stderr)
    leaksNothing(elsewhere)
  })

  it('the credentials file: used for its origin, refused when others may read it', async () => {
    const path = join(dir, 'credentials.json')
    writeFileSync(path, JSON.stringify({ [server.url]: { bearer: SECRET } }))
    chmodSync(path, 0o600)
    const ok = await cli(['send', agent, ...SEND], { env: { SWITCHBOARD_CREDENTIALS: path } })
    assert.equal(ok.code, 0, ok.stderr)
    chmodSync(path, 0o644)
    const open = await cli(['send', agent, ...SEND], { env: { SWITCHBOARD_CREDENTIALS: path } })
    assert.equal(open.code, 2, open.stderr)
    assert.match(open.stderr, /may be read by other users .*chmod 600/)
    leaksNothing(open)
    // Another origin's entry is not used.
    writeFileSync(path, JSON.stringify({ 'https://agents.example.com': { bearer: SECRET } }))
    chmodSync(path, 0o600)
    const other = await cli(['send', agent, ...SEND], { env: { SWITCHBOARD_CREDENTIALS: path } })
    assert.equal(other.code, 7, other.stderr)
  })

  it('AUTH_REQUIRED: exit 6 and the agent message, in text (--follow) and JSON (--wait --json)', async () => {
    const input = ['--input', '{"authorize":true}', '--token', SECRET]
    const [followed, waited] = await Promise.all([
      cli(['send', sdk.url, ...input, '--follow']),
      cli(['send', sdk.url, ...input, '--wait', '--json']),
    ])
    assert.equal(followed.code, 6, followed.stderr)
    assert.match(
      followed.stdout,
      /needs authorization: Authorize calendar access at https:\/\/auth\.example\/consent/,
    )
    assert.equal(waited.code, 6, waited.stderr)
    const task = json<RemoteTask>(waited)
    assert.equal(task.state, 'AUTH_REQUIRED')
    assert.equal(task.prompt, 'Authorize calendar access at https://auth.example/consent')
    leaksNothing(followed)
    leaksNothing(waited)
  })
})
