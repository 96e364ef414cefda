import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { instantAgent } from '../helpers/agents.ts'
import { spawnServer } from '../helpers/process.ts'
import { eventually, request, startServer } from '../helpers/server.ts'
import { startReceiver } from '../push/helpers.ts'

const agent = (overrides: Record<string, unknown>) =>
  defineAgent({
    id: '1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b',
    name: 'Probe',
    description: 'An agent for start-up checks.',
    inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    handler: () => ({}),
    ...overrides,
  })

describe('start-up checks', () => {
  it('an invalid card stops start-up with a message naming the bad field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ description: 'short' }, /"probe".*\/description.*10 characters/],
      [{ id: 'not-a-uuid' }, /\/agent_id must match format "uuid"/],
      [{ inputSchema: {} }, /\/input_schema must NOT have fewer than 1 properties/],
      [
        { notification: { endpointUrl: 'not a url' } },
        /\/notification_config\/endpoint_url must match format "uri"/,
      ],
      [
        { inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } },
        /inputSchema is not a valid JSON Schema/,
      ],
    ]
    for (const [overrides, message] of cases) {
      await assert.rejects(startServer({ agents: [agent(overrides)] }), message)
    }
  })

  it('refuses two agents with one slug, and an unknown default agent', async () => {
    await assert.rejects(
      startServer({ agents: [instantAgent, instantAgent] }),
      /two agents share the slug "instant"/,
    )
    await assert.rejects(
      startServer({ agents: [instantAgent], defaultAgent: 'nobody' }),
      /default agent "nobody"/,
    )
    assert.throws(() => agent({ slug: 'Not A Slug' }), /slug "Not A Slug" must match/)
  })

  it('the CLI exits non-zero and says why when a card is invalid', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', 'test/fixtures/bad-card-agent.ts'],
      {
        env: { ...process.env, PORT: '0', SWITCHBOARD_DATA: mkdtempSync(join(tmpdir(), 'sb-bad-')) },
      },
    )
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const code = await new Promise((resolve) => child.once('exit', resolve))
    assert.notEqual(code, 0)
    assert.match(
      stderr,
      /agent "terse" has an invalid AgentCard: \/description must NOT have fewer than 10 characters/,
    )
  })

  it('takes notification targets from a config file, per agent or for all ("*")', async () => {
    const receiver = await startReceiver()
    const dir = mkdtempSync(join(tmpdir(), 'sb-config-'))
    const config = join(dir, 'switchboard.json')
    writeFileSync(
      config,
      JSON.stringify({
        notifications: { '*': { endpoint_url: receiver.url, auth_header: 'X-Hook-Token: abc123' } },
        outboundAllow: ['127.0.0.1'],
      }),
    )
    const server = await spawnServer(['--config', config], { SWITCHBOARD_DATA: dir })
    try {
      const card = (await request(`${server.url}/agents/csv-analyst/agent-card.json`)).body
      assert.equal(card.notification_config.endpoint_url, receiver.url)
      await request(`${server.url}/agents/csv-analyst/tasks`, { body: { input: { csv: 'a\n1\n' } } })
      await eventually(async () => (receiver.received.length >= 3 ? true : undefined))
      assert.equal(receiver.received[0]!.headers['x-hook-token'], 'abc123')
      assert.doesNotMatch(server.output(), /abc123/, 'the credential never reaches the log')
    } finally {
      await server.stop()
      await receiver.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
