/**
 * GET /agents: every base_url ends with '/', so a client that resolves the card path relative to
 * it (the official SDK's createFromUrl) reaches that agent's card, not the server root's; our own
 * client and CLI take the URL with the slash as well.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SendMessageRequest, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client'
import { connect } from '../../src/client.ts'
import { cli, json } from '../cli/helpers.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

interface Listed {
  slug: string
  display_name: string
  base_url: string
  card_url: string
}

let server: TestServer
let agents: Listed[]
before(async () => {
  server = await startServer()
  const response = await fetch(`${server.url}/agents`)
  assert.equal(response.status, 200)
  agents = ((await response.json()) as { agents: Listed[] }).agents
})
after(() => server.close())

const listed = (slug: string): Listed => {
  const agent = agents.find((a) => a.slug === slug)
  assert.ok(agent, slug)
  return agent
}

describe('GET /agents', () => {
  it('gives each agent a base_url with a trailing slash, and its card URLs beside it', async () => {
    assert.ok(agents.length >= 4)
    for (const agent of agents) {
      assert.equal(agent.base_url, `${server.url}/agents/${agent.slug}/`)
      assert.equal(agent.card_url, `${server.url}/agents/${agent.slug}/agent-card.json`)
    }
    const index = (await (await fetch(`${server.url}/`)).json()) as {
      agents: (Listed & { a2a_card_url: string })[]
    }
    for (const agent of index.agents) {
      assert.equal(agent.base_url, `${server.url}/agents/${agent.slug}/`)
      assert.equal(agent.a2a_card_url, `${server.url}/agents/${agent.slug}/.well-known/agent-card.json`)
    }
  })

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`@a2a-js/sdk createFromUrl(base_url) finds that agent's card and talks to it over ${binding}`, async () => {
      const factory = new ClientFactory({
        transports: binding === 'JSONRPC' ? [new JsonRpcTransportFactory()] : [new RestTransportFactory()],
      })
      for (const agent of agents) {
        const client = await factory.createFromUrl(agent.base_url)
        const card = await client.getAgentCard()
        assert.equal(card.name, agent.display_name, `${agent.slug}: not the root agent's card`)
      }
      const { base_url } = listed('long-runner')
      const client = await factory.createFromUrl(base_url)
      const result = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { steps: 1, step_ms: 1 } }],
          },
        }),
      )
      assert.ok(!('messageId' in result), 'a task, not a message')
      assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED)
    })
  }

  it('our client connects to a base_url, trailing slash and all', async () => {
    const agent = await connect(listed('long-runner').base_url, { cache: false })
    assert.equal(agent.name, 'Long Runner')
    assert.deepEqual(
      agent.interfaces.map((i) => i.url),
      [
        `${server.url}/agents/long-runner/a2a/jsonrpc`,
        `${server.url}/agents/long-runner/a2a/rest`,
        // The one gRPC service of the server (its tenant selects the agent), as the client shows it.
        `http://${server.switchboard.grpcAddress()}`,
        `${server.url}/agents/long-runner`,
      ],
    )
    const done = await (await agent.send({ steps: 1, step_ms: 1 })).wait()
    assert.equal(done.state, 'COMPLETED')
  })

  it('the CLI reads the card at a base_url', async () => {
    const result = await cli(['card', listed('csv-analyst').base_url, '--json'])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(json<{ name: string }>(result).name, 'CSV Analyst')
  })
})
