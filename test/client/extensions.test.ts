/**
 * The client's side of A2A extensions: `connect({ extensions })` sends A2A-Extensions on every A2A
 * request (unary and streams, both bindings), reads the agent's echo, and warns when the card
 * requires one it will not send; the CLI's `--extensions` does the same.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { ClientError, connect } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { cli, json } from '../cli/helpers.ts'
import { CITATIONS, guarded, offering, runs, SIGNED } from '../fixtures/extension-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect, type RecordingProxy, recordingProxy } from './helpers.ts'

let server: TestServer
let proxy: RecordingProxy
before(async () => {
  proxy = await recordingProxy()
  server = await startServer({ agents: [...demoAgents, guarded, offering], publicUrl: proxy.url })
  proxy.target = `http://127.0.0.1:${(server.switchboard.app.server.address() as AddressInfo).port}`
})
after(async () => {
  await server.close()
  await proxy.close()
})
beforeEach(() => {
  runs.length = 0
  proxy.requests.length = 0
})

const base = () => `${proxy.url}/agents/guarded`

for (const kind of ['jsonrpc', 'rest'] as const) {
  describe(`extensions over ${kind}`, () => {
    it('sends A2A-Extensions on every A2A request and reads the echo of each message', async () => {
      const agent = await connect(base(), {
        prefer: [kind],
        cache: false,
        extensions: [CITATIONS, SIGNED, 'https://example.org/unknown'],
      })
      assert.deepEqual(agent.discovery.warnings, [])
      const task = await agent.send({ ask: true })
      assert.deepEqual(task.extensions, [SIGNED, CITATIONS], 'declared ones, in card order')
      assert.deepEqual(task.task.extensions, [SIGNED, CITATIONS])
      await collect(task.events({ until: 'settled' }))
      const answered = await task.provideInput({})
      assert.deepEqual(answered.extensions, [SIGNED, CITATIONS])
      assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
      assert.deepEqual(task.task.output, { extensions: [SIGNED, CITATIONS] })
      assert.deepEqual(task.extensions, [SIGNED, CITATIONS], 'the creation echo stays')
      const calls = proxy.requests.filter((r) => r.url.includes('/a2a/'))
      assert.ok(calls.length >= 3, 'send, subscribe or poll, answer')
      for (const call of calls)
        assert.equal(
          call.headers['a2a-extensions'],
          `${CITATIONS},${SIGNED},https://example.org/unknown`,
          call.url,
        )
      const cards = proxy.requests.filter((r) => r.url.endsWith('agent-card.json'))
      for (const card of cards) assert.equal(card.headers['a2a-extensions'], undefined, 'not on card reads')
    })

    it('without the required one: a warning at connect, EXTENSION_SUPPORT_REQUIRED on send', async () => {
      const agent = await connect(base(), { prefer: [kind], cache: false })
      assert.equal(agent.discovery.warnings.length, 1)
      assert.match(
        agent.discovery.warnings[0]!,
        /requires the extension https:\/\/example\.org\/ext\/signed-messages\/v1/,
      )
      await assert.rejects(agent.send({}), (error: unknown) => {
        assert.ok(error instanceof ClientError)
        assert.equal(error.code, 'EXTENSION_SUPPORT_REQUIRED')
        assert.equal(error.details?.requiredExtensions, SIGNED)
        return true
      })
      assert.equal(runs.length, 0)
      for (const call of proxy.requests) assert.equal(call.headers['a2a-extensions'], undefined)
    })

    it('an agent that activates nothing echoes nothing', async () => {
      const agent = await connect(`${proxy.url}/agents/offering`, { prefer: [kind], cache: false })
      const task = await agent.send({})
      assert.deepEqual(task.extensions, [])
      assert.equal(task.task.extensions, undefined)
    })
  })
}

describe('the extensions option', () => {
  it('refuses a URI that cannot travel in the header', async () => {
    for (const bad of ['a,b', 'has space', '']) {
      await assert.rejects(
        connect(base(), { extensions: [bad], cache: false }),
        (error: unknown) => error instanceof ClientError && error.code === 'INVALID_REQUEST',
      )
    }
  })
})

describe('switchboard --extensions', () => {
  it('card lists the extensions and warns; send activates them, and is refused without', async () => {
    const card = await cli(['card', base()])
    assert.equal(card.code, 0, card.stderr)
    assert.match(card.stdout, new RegExp(`extensions: +${SIGNED} \\(required\\), ${CITATIONS}`))
    assert.match(card.stdout, /warning: the agent requires the extension/)
    const sent = await cli([
      'send',
      base(),
      '--input',
      '{}',
      '--wait',
      '--json',
      '--extensions',
      `${SIGNED}, ${CITATIONS}`,
    ])
    assert.equal(sent.code, 0, sent.stderr)
    const task = json<{ state: string; output: unknown; extensions: string[] }>(sent)
    assert.equal(task.state, 'COMPLETED')
    assert.deepEqual(task.extensions, [SIGNED, CITATIONS])
    assert.deepEqual(task.output, { extensions: [SIGNED, CITATIONS] })
    const refused = await cli(['send', base(), '--input', '{}', '--wait'])
    assert.equal(refused.code, 4, 'the agent said no')
    assert.match(refused.stderr, /EXTENSION_SUPPORT_REQUIRED|requires the extension/)
  })
})
