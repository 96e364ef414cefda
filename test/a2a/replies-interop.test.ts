/**
 * The official @a2a-js/sdk 1.3 client and an agent that answers with messages, on both bindings:
 * a direct reply is the SDK's Message result (and the one item of its stream), a final message is
 * the status message of the Task it gets, and a text answer to a question reaches `ctx.ask`.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { replyAgents } from '../helpers/reply-agents.ts'
import { BINDINGS, sdkClient, startA2a, type TestServer } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ agents: replyAgents })
})
after(() => server.close())

const request = (part: { text: string } | { data: unknown }, extra: { taskId?: string } = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [part], ...extra },
  })

type Result = Awaited<ReturnType<Client['sendMessage']>>

const asTask = (result: Result) => {
  assert.ok('status' in result, `a Task, not ${JSON.stringify(result)}`)
  return result
}

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined): string[] =>
  (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value as string] : []))

for (const binding of BINDINGS) {
  describe(`@a2a-js/sdk and messages from the agent over ${binding}`, () => {
    let client: Client
    before(async () => {
      client = await sdkClient(server.base('replier'), binding)
    })

    it('sendMessage: a direct reply is a Message, with the task it was recorded as', async () => {
      const result = await client.sendMessage(request({ text: 'hello' }))
      assert.ok(!('status' in result) && 'messageId' in result, 'a Message')
      assert.equal(result.role, 2, 'ROLE_AGENT')
      assert.deepEqual(textOf(result.parts), ['You said: hello'])
      const data = result.parts.find((p) => p.content?.$case === 'data')
      assert.deepEqual(data?.content?.value, { length: 5 })
      const task = await client.getTask({ tenant: '', id: result.taskId })
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.equal(task.status?.message?.messageId, result.messageId)
    })

    it('sendMessageStream: a direct reply is the stream’s one message', async () => {
      const events: StreamResponse[] = []
      for await (const event of client.sendMessageStream(request({ text: 'stream' }))) events.push(event)
      assert.deepEqual(
        events.map((e) => e.payload?.$case),
        ['message'],
      )
      const message = events[0]?.payload?.$case === 'message' ? events[0].payload.value : undefined
      assert.deepEqual(textOf(message?.parts), ['You said: stream'])
    })

    it('a final message is the status message of the Task, beside its output', async () => {
      const task = asTask(await client.sendMessage(request({ data: { final: true } })))
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.deepEqual(textOf(task.status?.message?.parts), ['Done.'])
      assert.deepEqual(
        task.artifacts.map((a) => a.name),
        ['output'],
      )
      const failed = asTask(await client.sendMessage(request({ data: { fail: true } })))
      assert.equal(failed.status?.state, TaskState.TASK_STATE_FAILED)
      assert.deepEqual(textOf(failed.status?.message?.parts), ['Sorry, I cannot.'])
    })

    it('a text answer to a question reaches ctx.ask as the answering message', async () => {
      const asked = asTask(await client.sendMessage(request({ data: { ask: true } })))
      assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED)
      const answer = request({ text: 'Ada' }, { taskId: asked.id })
      const done = asTask(await client.sendMessage(answer))
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.deepEqual(textOf(done.status?.message?.parts), ['Thanks, Ada'])
      const output = done.artifacts.find((a) => a.name === 'output')?.parts[0]?.content
      assert.ok(output?.$case === 'data')
      assert.deepEqual((output.value as { answer: unknown }).answer, {
        messageId: answer.message?.messageId,
        text: 'Ada',
        data: null,
        kinds: ['text'],
        input: { text: 'Ada' },
      })
    })
  })
}
