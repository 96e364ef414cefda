/**
 * The CLI and messages from the agent: `send` prints a direct reply, `input --text` answers with a
 * text, and the status message shows in every state it is given.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask, TaskUpdate } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { replyAgents } from '../helpers/reply-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { cli, json, lines } from './helpers.ts'

let server: TestServer
const at = (slug: string) => `${server.url}/agents/${slug}`
before(async () => {
  server = await startServer({ agents: [...demoAgents, ...replyAgents] })
})
after(() => server.close())

describe('messages from the agent, in the CLI', () => {
  it('send prints a direct reply: text, and the reply in JSON', async () => {
    const [text, asJson] = await Promise.all([
      cli(['send', at('replier'), '--text', 'hello']),
      cli(['send', at('replier'), '--text', 'hello', '--json']),
    ])
    assert.equal(text.code, 0, text.stderr)
    assert.match(text.stdout, /COMPLETED/)
    assert.match(text.stdout, /reply: {3}You said: hello/)
    assert.equal(asJson.code, 0, asJson.stderr)
    const task = json<RemoteTask>(asJson)
    assert.equal(task.reply?.text, 'You said: hello')
    assert.deepEqual(task.reply?.data, { length: 5 })
  })

  it('input --text answers a question; the final message is printed, --follow shows it on its status line', async () => {
    const asked = await cli(['send', at('replier'), '--input', '{"ask":true}', '--wait', '--json'])
    assert.equal(asked.code, 5, asked.stderr)
    const { id } = json<RemoteTask>(asked)
    const answered = await cli(['input', at('replier'), id, '--text', 'Ada', '--wait'])
    assert.equal(answered.code, 0, answered.stderr)
    assert.match(answered.stdout, /message: Thanks, Ada/)
    const watched = await cli(['watch', at('replier'), id, '--prefer', 'rest'])
    assert.match(watched.stdout, /COMPLETED: Thanks, Ada/)
    const followed = await cli(['watch', at('replier'), id, '--json'])
    const last = lines<TaskUpdate>(followed).at(-1)
    assert.ok(last?.type === 'status')
    assert.equal(last.task.message?.text, 'Thanks, Ada')
  })

  it('input --text to the report builder (docs/cli.md): its sections, comma-separated', async () => {
    const asked = await cli(['send', at('report-builder'), '--text', 'Q4', '--wait', '--json'])
    assert.equal(asked.code, 5, asked.stderr)
    const { id } = json<RemoteTask>(asked)
    const done = await cli([
      'input',
      at('report-builder'),
      id,
      '--text',
      'Intro, Numbers',
      '--wait',
      '--json',
    ])
    assert.equal(done.code, 0, done.stderr)
    assert.deepEqual(json<RemoteTask>(done).output, { title: 'Report: Q4', sections: ['Intro', 'Numbers'] })
  })

  it('a failure shows its error and the agent’s final message', async () => {
    const failed = await cli(['send', at('replier'), '--input', '{"fail":true}', '--wait'])
    assert.equal(failed.code, 1, failed.stderr)
    assert.match(failed.stdout, /error: {3}NOPE: no can do/)
    assert.match(failed.stdout, /message: Sorry, I cannot\./)
  })

  it('input takes exactly one of <json> and --text', async () => {
    const [both, neither] = await Promise.all([
      cli(['input', at('replier'), '01a22f91-7fce-7000-acb3-1b2593a91264', '{}', '--text', 'x']),
      cli(['input', at('replier'), '01a22f91-7fce-7000-acb3-1b2593a91264']),
    ])
    assert.equal(both.code, 2)
    assert.match(both.stderr, /exactly one of <json> or --text/)
    assert.equal(neither.code, 2)
  })
})
