/**
 * The client against a real @a2a-js/sdk 1.3 server, over both of its bindings: a peer with no
 * SSE ids, no resume, no heartbeats, and a snapshot first on every subscription.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Agent, connect } from '../../src/client.ts'
import { collect, shapes } from './helpers.ts'
import { type SdkAgent, startSdkAgent } from './sdk-agent.ts'

let streaming: SdkAgent
let polled: SdkAgent
before(async () => {
  streaming = await startSdkAgent()
  polled = await startSdkAgent({ streaming: false })
})
after(async () => {
  await streaming.close()
  await polled.close()
})

for (const kind of ['jsonrpc', 'rest'] as const) {
  describe(`@a2a-js/sdk over ${kind}`, () => {
    let agent: Agent
    before(async () => {
      agent = await connect(streaming.url, { prefer: [kind], timeoutMs: 5000, cache: false })
    })

    it('sends and follows the task to its output, every artifact once', async () => {
      assert.equal(agent.interface.kind, kind)
      const task = await agent.send({ steps: 3, step_ms: 20 })
      const updates = await collect(task.events())
      const kinds = shapes(updates)
      assert.deepEqual(
        kinds.filter((k) => k.startsWith('artifact:step')),
        ['artifact:step-1', 'artifact:step-2', 'artifact:step-3'],
      )
      assert.equal(kinds.at(-1), 'status:COMPLETED')
      assert.equal(
        new Set(kinds.filter((k) => k.startsWith('artifact:'))).size,
        kinds.filter((k) => k.startsWith('artifact:')).length,
      )
      assert.deepEqual(task.task.output, { steps: 3 })
      const artifacts = await task.artifacts()
      assert.deepEqual(
        artifacts.filter((a) => a.type === 'text').map((a) => (a.type === 'text' ? a.text : '')),
        ['step 1 of 3', 'step 2 of 3', 'step 3 of 3'],
      )
    })

    it('input: waits at INPUT_REQUIRED, answers with a follow-up message, completes', async () => {
      const task = await agent.send({ ask: true })
      const asked = await task.wait({ timeoutMs: 5000 })
      assert.equal(asked.state, 'INPUT_REQUIRED')
      assert.equal(asked.prompt, 'What is your name?')
      await task.provideInput({ name: 'Ada' })
      const done = await task.wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
      assert.deepEqual(done.output, { greeting: 'Hello, Ada!' })
    })

    it('cancel: a running task ends CANCELLED, and its follower sees it', async () => {
      const task = await agent.send({ steps: 100, step_ms: 20 })
      const seen: string[] = []
      for await (const update of task.events()) {
        seen.push(...shapes([update]))
        if (update.type === 'artifact' && update.artifact.id === 'step-2') await task.cancel()
      }
      assert.equal(seen.at(-1), 'status:CANCELLED')
      assert.equal(task.status, 'CANCELLED')
    })

    it('a failed task, a message reply, and ListTasks', async () => {
      const failed = await (await agent.send({ fail: true })).wait({ timeoutMs: 5000 })
      assert.equal(failed.state, 'FAILED')
      assert.deepEqual(failed.error, { code: 'FAILED', message: 'it broke' })

      const reply = await agent.send({ text: 'ping' })
      assert.equal(reply.task.reply?.text, 'pong')
      assert.equal(reply.status, 'COMPLETED')

      const listed = []
      for await (const task of agent.list({ pageSize: 1 })) listed.push(task)
      assert.ok(listed.length >= 4)
      assert.ok(listed.some((t) => t.id === failed.id && t.state === 'FAILED'))
    })

    it('follows a task that has already ended (the subscription is refused; GetTask says how it ended)', async () => {
      const task = await agent.send({ steps: 0 })
      await task.wait({ timeoutMs: 5000 })
      const late = await agent.task(task.id)
      const updates = await collect(late.events())
      assert.equal(shapes(updates).at(-1), 'status:COMPLETED')
    })
  })
}

describe('@a2a-js/sdk without streaming', () => {
  it('polls with backoff instead of subscribing, and still sees state changes and artifacts', async () => {
    const agent = await connect(polled.url, { poll: { minMs: 20, maxMs: 100 }, cache: false })
    assert.equal(agent.interface.streaming, false)
    const task = await agent.send({ steps: 3, step_ms: 30 })
    const kinds = shapes(await collect(task.events()))
    assert.equal(kinds.at(-1), 'status:COMPLETED')
    for (const step of ['artifact:step-1', 'artifact:step-2', 'artifact:step-3'])
      assert.ok(kinds.includes(step), step)
    const asked = await agent.send({ ask: true })
    assert.equal((await asked.wait({ timeoutMs: 5000 })).state, 'INPUT_REQUIRED')
  })
})
