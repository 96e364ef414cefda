/**
 * Messages from the agent in the client, over each interface: a direct reply (an A2A Message
 * result) is a handle whose task is COMPLETED with `reply`; a task's status message is
 * `task.message` in every state, the final one included; answers go as text or data.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeSendResult, decodeStreamResponse, decodeTask } from '../../src/client/transports/a2a-codec.ts'
import type { InterfaceKind, RemoteTask } from '../../src/client/types.ts'
import { type Agent, connect } from '../../src/client.ts'
import { replyAgents } from '../helpers/reply-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect } from './helpers.ts'
import { type SdkAgent, startSdkAgent } from './sdk-agent.ts'

let server: TestServer
let sdk: SdkAgent
before(async () => {
  server = await startServer({ agents: replyAgents })
  sdk = await startSdkAgent()
})
after(async () => {
  await server.close()
  await sdk.close()
})

const agentAt = (slug: string, kind: InterfaceKind): Promise<Agent> =>
  connect(`${server.url}/agents/${slug}`, { prefer: [kind], timeoutMs: 5000 })

for (const kind of ['jsonrpc', 'rest'] as const) {
  describe(`messages from the agent, client over ${kind}`, () => {
    it('a direct reply: COMPLETED with `reply`, its text and data, and the reply as output', async () => {
      const agent = await agentAt('replier', kind)
      const handle = await agent.send({ text: 'hi' })
      const { task } = handle
      assert.equal(task.state, 'COMPLETED')
      assert.equal(task.reply?.text, 'You said: hi')
      assert.deepEqual(task.reply?.data, { length: 2 })
      assert.deepEqual(
        task.reply?.parts.map((p) => p.kind),
        ['text', 'data'],
      )
      assert.deepEqual(task.message, task.reply)
      assert.deepEqual(task.output, { text: 'You said: hi', data: { length: 2 } })
      assert.equal((await handle.wait()).reply?.messageId, task.reply?.messageId)
    })
  })
}

for (const kind of ['jsonrpc', 'rest', 'clawpedia'] as const) {
  describe(`final messages, client over ${kind}`, () => {
    it('the final message of a COMPLETED task, with its output, in wait() and in events()', async () => {
      const agent = await agentAt('replier', kind)
      const handle = await agent.send({ final: true })
      const done = await handle.wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
      assert.equal(done.message?.text, 'Done.')
      assert.deepEqual(done.output, { ok: true })
      const updates = await collect(handle.events())
      const last = updates.at(-1)
      assert.ok(last?.type === 'status')
      assert.equal(last.task.message?.text, 'Done.')
    })

    it('the final message of a FAILED task, beside its error', async () => {
      const agent = await agentAt('replier', kind)
      const failed = await (await agent.send({ fail: true })).wait({ timeoutMs: 5000 })
      assert.equal(failed.state, 'FAILED')
      assert.equal(failed.error?.code, 'NOPE')
      assert.equal(failed.message?.text, 'Sorry, I cannot.')
      assert.deepEqual(failed.message?.data, { retry: false })
    })

    it('a text answer to a question: provideInput({ text }) reaches ctx.ask as text', async () => {
      const agent = await agentAt('replier', kind)
      const handle = await agent.send({ ask: true })
      assert.equal((await handle.wait({ timeoutMs: 5000 })).prompt, 'Your name?')
      await handle.provideInput({ text: 'Ada' })
      const done = await handle.wait({ timeoutMs: 5000 })
      assert.equal(done.message?.text, 'Thanks, Ada')
      assert.equal((done.output?.answer as { text?: string } | undefined)?.text, 'Ada')
    })

    it('a reply from an agent that answers Clawpedia with a task: its output is the reply', async () => {
      const agent = await agentAt('late-replier', kind)
      const done = await (await agent.send({})).wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
      assert.equal(done.message?.text, 'pong')
      assert.deepEqual(done.output, { text: 'pong' })
    })
  })
}

describe('status messages in every state', () => {
  it('decodes the status message whatever the state', () => {
    const message = { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'half way' }, { data: { n: 1 } }] }
    for (const state of ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED'] as const) {
      const item = decodeStreamResponse({
        statusUpdate: { taskId: 't', contextId: 'c', status: { state, message } },
      })
      assert.ok(item?.kind === 'status')
      assert.equal(item.message?.text, 'half way')
      assert.deepEqual(item.message?.data, { n: 1 })
      assert.deepEqual(item.message?.parts, [
        { kind: 'text', text: 'half way' },
        { kind: 'data', data: { n: 1 } },
      ])
    }
    const completed = decodeTask({ id: 't', status: { state: 'TASK_STATE_COMPLETED', message } })
    assert.deepEqual(
      completed.output,
      { text: 'half way', data: { n: 1 } },
      'no output artifact: the message',
    )
    const reply: RemoteTask = decodeSendResult({ message: { ...message, contextId: 'c' } })
    assert.equal(reply.reply?.text, 'half way')
    assert.equal(reply.state, 'COMPLETED')
  })

  it('@a2a-js/sdk: the WORKING status message ("starting") reaches events()', async () => {
    for (const kind of ['jsonrpc', 'rest'] as const) {
      const agent = await connect(sdk.url, { prefer: [kind], timeoutMs: 5000, cache: false })
      // Long enough to be seen WORKING, whenever the subscription starts; cancelled once it is.
      const handle = await agent.send({ steps: 2000, step_ms: 50 })
      let working: RemoteTask | undefined
      for await (const update of handle.events()) {
        if (update.type === 'status' && update.task.state === 'WORKING') {
          working = update.task
          break
        }
      }
      await handle.cancel()
      assert.equal(working?.message?.text, 'starting', kind)
    }
  })
})
