/**
 * An agent of ours that needs the caller's authorization mid-task (`ctx.requireAuth`), driven by
 * the CLI as an authenticated caller: AUTH_REQUIRED exits 6 with the agent's message, and the
 * caller's "done" completes the task.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask } from '../../src/client.ts'
import { CALENDAR_AUTH_URL, calendarAgent } from '../fixtures/auth-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'
import { cli, json } from './helpers.ts'

const TOKEN = bearer('alice', 'acme').authorization!.replace(/^Bearer /, '')
let server: TestServer
before(async () => {
  server = await startServer({ agents: [calendarAgent], identity: { authenticators: [testAuthenticator] } })
})
after(async () => {
  await server.close()
})

describe('AUTH_REQUIRED from one of our agents, in the CLI', () => {
  it('exits 6 with what to authorize and where; the caller reports it done and the task completes', async () => {
    const url = `${server.url}/agents/calendar`
    const waiting = await cli([
      'send',
      url,
      '--input',
      '{"skipWeek":true}',
      '--token',
      TOKEN,
      '--wait',
      '--json',
    ])
    assert.equal(waiting.code, 6, waiting.stderr)
    const task = json<RemoteTask>(waiting)
    assert.equal(task.state, 'AUTH_REQUIRED')
    assert.match(task.prompt ?? '', /Authorize access to your calendar/)
    assert.ok(task.prompt?.includes(CALENDAR_AUTH_URL), task.prompt)

    const stranger = await cli(['input', url, task.id, '{}', '--token', 'nobody', '--wait'])
    assert.equal(stranger.code, 7, 'a refused credential cannot answer')

    const done = await cli([
      'input',
      url,
      task.id,
      '{"authorized":true}',
      '--token',
      TOKEN,
      '--wait',
      '--json',
    ])
    assert.equal(done.code, 0, done.stderr)
    const finished = json<RemoteTask>(done)
    assert.equal(finished.state, 'COMPLETED')
    assert.deepEqual(finished.output, { week: null, done: { authorized: true }, principal: 'alice' })
  })
})
