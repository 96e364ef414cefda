/**
 * The engine recognises agent errors by their brand, not by class: an agent that imports another
 * copy of switchboard throws classes the engine never saw, and must still end FAILED with its own
 * code, or REJECTED.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { AgentError, defineAgent } from '../../src/agent/define.ts'
import { connect } from '../../src/client.ts'
import { ForeignAgentError, ForeignTaskRejection } from '../fixtures/foreign-agent-errors.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

const thrower = defineAgent({
  id: '3b0e7f52-6c1d-4e8a-9f2b-1a2b3c4d5e6f',
  name: 'Thrower',
  description: 'Throws what it is told to, from another copy of switchboard.',
  inputSchema: { type: 'object' },
  handler(input) {
    if (input.throw === 'rejection') throw new ForeignTaskRejection('not for you')
    if (input.throw === 'error')
      throw new ForeignAgentError('NO_NAME', 'cannot greet nobody', { who: 'nobody' })
    throw Object.assign(new Error('looks like one'), { code: 'NOT_BRANDED' })
  },
})

let server: TestServer
before(async () => {
  server = await startServer({ agents: [thrower] })
})
after(() => server.close())

const outcome = async (input: Record<string, string>) => {
  const agent = await connect(`${server.url}/agents/thrower`)
  return (await agent.send(input)).wait()
}

describe('agent errors from another copy of switchboard', () => {
  it('are not instances of our classes, yet fail the task with their code, or reject it', async () => {
    assert.equal(new ForeignAgentError('X', 'x') instanceof AgentError, false)
    const failed = await outcome({ throw: 'error' })
    assert.equal(failed.state, 'FAILED')
    assert.deepEqual(failed.error, {
      code: 'NO_NAME',
      message: 'cannot greet nobody',
      details: { who: 'nobody' },
    })
    const rejected = await outcome({ throw: 'rejection' })
    assert.equal(rejected.state, 'REJECTED')
    assert.deepEqual(rejected.error, { code: 'REJECTED', message: 'not for you' })
  })

  it('an error with a code but no brand is an unexpected failure, AGENT_ERROR', async () => {
    const failed = await outcome({ throw: 'plain' })
    assert.equal(failed.state, 'FAILED')
    assert.equal(failed.error?.code, 'AGENT_ERROR')
  })
})
