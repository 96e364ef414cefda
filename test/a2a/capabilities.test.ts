/**
 * Capabilities are choices: an agent that turns streaming off says so in its card, and both
 * bindings answer its streams UnsupportedOperationError (spec §3.3.4) before storing anything;
 * every other operation, and the Clawpedia stream, still work. Clients that read the card (the
 * official SDK, ours) do without the stream.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SendMessageRequest, TaskState } from '@a2a-js/sdk'
import { UnsupportedOperationError } from '@a2a-js/sdk/errors'
import { defineAgent } from '../../src/agent/define.ts'
import { connect } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { getTask, sendMessage, streamMessage, subscribe, taskCount } from './binding-calls.ts'
import { BINDINGS, http, readSse, sdkClient, startA2a, type TestServer } from './helpers.ts'

/** Completes at once unless asked to wait for an answer first. */
const quiet = defineAgent({
  id: '7a9e0c1d-2b3f-4c5d-8e6f-9a0b1c2d3e4f',
  slug: 'quiet',
  name: 'Quiet',
  description: 'Answers without streaming.',
  streaming: false,
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    if (input.ask) await ctx.ask('Go on?')
    await ctx.log('info', 'done')
    return { ok: true }
  },
})

let server: TestServer
before(async () => {
  server = await startA2a({ agents: [...demoAgents, quiet] })
})
after(() => server.close())

const base = () => server.base('quiet')
const message = (data: object) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] },
})

describe('capabilities.streaming: false', () => {
  it('is in the card; an agent that does not say so streams', async () => {
    const card = (await http(`${base()}/.well-known/agent-card.json`)).body
    assert.equal(card.capabilities.streaming, false)
    assert.equal(card.capabilities.pushNotifications, true)
    const streaming = (await http(`${server.base('long-runner')}/.well-known/agent-card.json`)).body
    assert.equal(streaming.capabilities.streaming, true)
  })

  for (const binding of BINDINGS) {
    describe(binding, () => {
      it('SendStreamingMessage is UnsupportedOperationError, and creates no task', async () => {
        const before = await taskCount(binding, base())
        const { events, answer } = await streamMessage(binding, base(), message({}))
        assert.equal(events.length, 0, 'no stream')
        assert.ok(answer?.error)
        assert.equal(answer.error.reason, 'UNSUPPORTED_OPERATION')
        if (binding === 'JSONRPC') assert.equal(answer.error.jsonRpcCode, -32004)
        else assert.equal(answer.status, 400)
        assert.match(answer.error.message, /capabilities\.streaming is false/)
        assert.equal(await taskCount(binding, base()), before, 'nothing stored')
      })

      it('SubscribeToTask is UnsupportedOperationError, resumed or not; SendMessage and GetTask work', async () => {
        const sent = await sendMessage(binding, base(), message({ ask: true }))
        const task = sent.result.task
        assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED')
        const refusals = [
          await subscribe(binding, base(), task.id),
          await subscribe(binding, base(), task.id, { headers: { 'Last-Event-ID': '1' } }),
          ...(binding === 'HTTP+JSON' ? [await subscribe(binding, base(), task.id, { method: 'GET' })] : []),
        ]
        for (const refused of refusals) {
          assert.equal(refused.events.length, 0)
          assert.equal(refused.answer?.error?.reason, 'UNSUPPORTED_OPERATION')
        }
        const read = await getTask(binding, base(), task.id)
        assert.equal(read.result.status.state, 'TASK_STATE_INPUT_REQUIRED')
      })
    })
  }

  it('the Clawpedia stream of the same agent is still served', async () => {
    const created = await http(`${base()}/tasks`, { body: { input: {} } })
    assert.equal(created.status, 202)
    const stream = await readSse(`${base()}/tasks/${created.body.task_id}/stream`)
    assert.equal(stream.status, 200)
    assert.ok(stream.closedByServer)
    assert.ok(stream.events.some((e) => e.event === 'log'))
    assert.equal(JSON.parse(stream.events.at(-1)!.data).status, 'COMPLETED')
  })

  for (const binding of BINDINGS) {
    it(`@a2a-js/sdk over ${binding}: sendMessageStream falls back to SendMessage; resubscribe is refused`, async () => {
      const client = await sdkClient(base(), binding)
      const items = []
      for await (const item of client.sendMessageStream(
        SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] },
        }),
      ))
        items.push(item)
      assert.equal(items.length, 1)
      const only = items[0]!.payload
      assert.equal(only?.$case, 'task')
      assert.equal(only.$case === 'task' && only.value.status?.state, TaskState.TASK_STATE_COMPLETED)
      const asked = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { ask: true } }] },
        }),
      )
      assert.ok('id' in asked)
      await assert.rejects(async () => {
        for await (const _ of client.resubscribeTask({ tenant: '', id: asked.id })) {
          // nothing arrives
        }
      }, UnsupportedOperationError)
    })
  }

  for (const kind of ['jsonrpc', 'rest'] as const) {
    it(`our client over ${kind} polls instead of subscribing`, async () => {
      const agent = await connect(base(), { prefer: [kind], cache: false, poll: { minMs: 10, maxMs: 50 } })
      assert.equal(agent.interface.streaming, false)
      const task = await agent.send({ ask: true })
      const updates = []
      for await (const update of task.events({ until: 'settled' })) updates.push(update)
      assert.equal(task.status, 'INPUT_REQUIRED')
      await task.provideInput({})
      const done = await task.wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
    })
  }
})
