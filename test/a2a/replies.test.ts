/**
 * Agents that answer with messages, on both A2A bindings and over Clawpedia: a direct reply is a
 * Message (SendMessage `message`, one `message` stream item) and still a COMPLETED task; a final
 * message is the status message of COMPLETED, FAILED and REJECTED; a task shows an output artifact
 * only when there is output; `ctx.ask` resolves with the answering message.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { validateClawpediaTask } from '../helpers/clawpedia-schemas.ts'
import { replyAgents } from '../helpers/reply-agents.ts'
import {
  BINDINGS,
  type Binding,
  http,
  readSse,
  rest,
  rpc,
  type SseEvent,
  startA2a,
  type TestServer,
  V,
} from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ agents: replyAgents })
})
after(() => server.close())

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
type Json = any

const message = (parts: unknown[], extra: object = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
})

/** One binding's SendMessage, SendStreamingMessage and GetTask, results checked against the schema. */
const bindingOf = (binding: Binding) => ({
  async send(slug: string, params: object): Promise<Json> {
    const base = server.base(slug)
    const response =
      binding === 'JSONRPC'
        ? await rpc(base, 'SendMessage', params)
        : await rest(base, '/message:send', { method: 'POST', body: params })
    const result = binding === 'JSONRPC' ? response.body.result : response.body
    assert.ok(result, JSON.stringify(response.body))
    checkA2a('SendMessageResponse', result)
    return result
  },
  async stream(
    slug: string,
    params: object,
  ): Promise<{ items: Json[]; events: SseEvent[]; closed: boolean }> {
    const base = server.base(slug)
    const stream =
      binding === 'JSONRPC'
        ? await readSse(`${base}/a2a/jsonrpc`, {
            body: { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params },
            headers: { ...V },
          })
        : await readSse(`${base}/a2a/rest/message:stream`, {
            method: 'POST',
            body: params,
            headers: { ...V },
          })
    const items = stream.events.map((e) => {
      const parsed = JSON.parse(e.data)
      return binding === 'JSONRPC' ? parsed.result : parsed
    })
    for (const item of items) checkA2a('StreamResponse', item)
    return { items, events: stream.events, closed: stream.closedByServer }
  },
  async get(slug: string, id: string): Promise<Json> {
    const base = server.base(slug)
    const task =
      binding === 'JSONRPC'
        ? (await rpc(base, 'GetTask', { id })).body.result
        : (await rest(base, `/tasks/${id}`)).body
    checkA2a('Task', task)
    return task
  },
})

for (const binding of BINDINGS) {
  describe(`messages from the agent over ${binding}`, () => {
    const a2a = bindingOf(binding)

    it('a direct reply is a Message with the task’s ids, and a COMPLETED task with it as its status message', async () => {
      const sent = message([{ text: 'hello' }])
      const { message: reply, task } = await a2a.send('replier', { message: sent })
      assert.equal(task, undefined, 'no Task')
      assert.equal(reply.role, 'ROLE_AGENT')
      assert.deepEqual(reply.parts, [
        { text: 'You said: hello' },
        { data: { length: 5 }, mediaType: 'application/json' },
      ])
      assert.ok(reply.contextId && reply.taskId && reply.messageId)

      const stored = await a2a.get('replier', reply.taskId)
      assert.equal(stored.status.state, 'TASK_STATE_COMPLETED')
      assert.deepEqual(stored.status.message, reply)
      assert.equal(stored.artifacts, undefined, 'no artifact: the agent made none and gave no output')
      assert.equal(stored.contextId, reply.contextId)
      assert.deepEqual(
        stored.history.map((m: Json) => [m.role, m.messageId]),
        [
          ['ROLE_USER', sent.messageId],
          ['ROLE_AGENT', reply.messageId],
        ],
      )

      const again = await a2a.send('replier', { message: sent })
      assert.deepEqual(again.message, reply, 'the same messageId again: the same reply, from the log')
    })

    it('returnImmediately to an agent that declares direct replies waits for its first move', async () => {
      const replied = await a2a.send('replier', {
        message: message([{ text: 'quick' }]),
        configuration: { returnImmediately: true },
      })
      assert.deepEqual(replied.message.parts[0], { text: 'You said: quick' })

      const working = await a2a.send('replier', {
        message: message([{ data: { work: true } }]),
        configuration: { returnImmediately: true },
      })
      assert.ok(working.task, 'a first move that is no reply (a log line) answers with the Task')
      assert.notEqual(working.task.status.state, 'TASK_STATE_SUBMITTED')
    })

    it('an agent that does not declare direct replies: a Message only from a blocking send', async () => {
      const blocking = await a2a.send('late-replier', { message: message([{ text: 'ping' }]) })
      assert.deepEqual(blocking.message.parts, [{ text: 'pong' }])

      const immediate = await a2a.send('late-replier', {
        message: message([{ text: 'ping' }]),
        configuration: { returnImmediately: true },
      })
      assert.ok(immediate.task)
      const streamed = await a2a.stream('late-replier', { message: message([{ text: 'ping' }]) })
      assert.ok(streamed.items[0].task, 'the Task first')
      const last = streamed.items.at(-1).statusUpdate
      assert.equal(last.status.state, 'TASK_STATE_COMPLETED')
      assert.deepEqual(last.status.message.parts, [{ text: 'pong' }], 'the reply is the final status message')
    })

    it('SendStreamingMessage: a direct reply is exactly one message, then the stream closes', async () => {
      const sent = message([{ text: 'stream me' }])
      const { items, events, closed } = await a2a.stream('replier', { message: sent })
      assert.ok(closed)
      assert.equal(items.length, 1, JSON.stringify(items))
      assert.equal(items[0].message.role, 'ROLE_AGENT')
      assert.deepEqual(items[0].message.parts[0], { text: 'You said: stream me' })
      assert.equal(events[0]?.id, undefined, 'a message is no task event')
      const again = await a2a.stream('replier', { message: sent })
      assert.deepEqual(again.items, items, 'the same message again: the same one reply')
    })

    it('SendStreamingMessage to the same agent doing work: the Task, its updates, the completion', async () => {
      const { items, closed } = await a2a.stream('replier', { message: message([{ data: { work: true } }]) })
      assert.ok(closed)
      assert.equal(items[0].task.status.state, 'TASK_STATE_SUBMITTED', 'the Task as it was accepted')
      const states = items.flatMap((i: Json) => (i.statusUpdate ? [i.statusUpdate.status.state] : []))
      assert.deepEqual(states, ['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'])
      assert.equal(items[2].statusUpdate.status.message.metadata.switchboard.kind, 'log')
      assert.ok(items.some((i: Json) => i.artifactUpdate?.artifact.name === 'output'))
    })

    it('a final message with an output: the Task, its output artifact, the message as its status', async () => {
      const { task } = await a2a.send('replier', { message: message([{ data: { final: true } }]) })
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
      assert.deepEqual(task.status.message.parts, [{ text: 'Done.' }])
      assert.equal(task.status.message.taskId, task.id)
      assert.deepEqual(
        task.artifacts.map((a: Json) => [a.name, a.parts[0].data]),
        [['output', { ok: true }]],
      )
      assert.deepEqual(task.history.at(-1), task.status.message)
    })

    it('a failure and a rejection carry the agent’s final message, the error beside it', async () => {
      const failed = (await a2a.send('replier', { message: message([{ data: { fail: true } }]) })).task
      assert.equal(failed.status.state, 'TASK_STATE_FAILED')
      assert.deepEqual(failed.status.message.parts, [
        { text: 'Sorry, I cannot.' },
        { data: { retry: false }, mediaType: 'application/json' },
      ])
      assert.deepEqual(failed.status.message.metadata.switchboard.error, {
        code: 'NOPE',
        message: 'no can do',
      })
      const again = await a2a.get('replier', failed.id)
      assert.deepEqual(again.status.message, failed.status.message, 'the same message on every read')

      const rejected = (await a2a.send('replier', { message: message([{ data: { reject: true } }]) })).task
      assert.equal(rejected.status.state, 'TASK_STATE_REJECTED')
      assert.deepEqual(rejected.status.message.parts, [{ text: 'Try the other agent.' }])
      assert.equal(rejected.status.message.metadata.switchboard.error.code, 'NOT_MINE')
    })

    it('no output, no artifact: a handler that returns nothing completes with none', async () => {
      const { task } = await a2a.send('replier', { message: message([{ data: { nothing: true } }]) })
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
      assert.equal(task.artifacts, undefined)
      assert.equal(task.status.message, undefined)
    })

    it('ctx.ask resolves with the answering message: a text answer, then a data answer', async () => {
      const asked = (await a2a.send('replier', { message: message([{ data: { ask: true } }]) })).task
      assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED')
      const answer = message([{ text: 'Ada' }], { taskId: asked.id })
      const done = (await a2a.send('replier', { message: answer })).task
      assert.equal(done.status.state, 'TASK_STATE_COMPLETED', 'an answered task is a Task, never a reply')
      assert.deepEqual(done.status.message.parts, [{ text: 'Thanks, Ada' }])
      const output = done.artifacts.find((a: Json) => a.name === 'output').parts[0].data
      assert.deepEqual(output.answer, {
        messageId: answer.messageId,
        text: 'Ada',
        data: null,
        kinds: ['text'],
        input: { text: 'Ada' },
      })

      const again = (await a2a.send('replier', { message: message([{ data: { ask: true } }]) })).task
      const dataAnswer = message([{ data: { name: 'Grace' } }], { taskId: again.id })
      const byData = (await a2a.send('replier', { message: dataAnswer })).task
      assert.deepEqual(byData.status.message.parts, [{ text: 'Thanks, Grace' }])
      assert.deepEqual(byData.artifacts.find((a: Json) => a.name === 'output').parts[0].data.answer, {
        messageId: dataAnswer.messageId,
        text: null,
        data: { name: 'Grace' },
        kinds: ['data'],
        input: { name: 'Grace' },
      })
    })

    it('a reply is checked against the output schema as { text, data }; an oversized one fails the task', async () => {
      const fine = await a2a.send('strict-replier', { message: message([{ text: 'x' }]) })
      assert.deepEqual(fine.message.parts, [{ text: 'fine' }])
      const refused = (await a2a.send('strict-replier', { message: message([{ data: { dataOnly: true } }]) }))
        .task
      assert.equal(refused.status.state, 'TASK_STATE_FAILED')
      assert.equal(refused.status.message.metadata.switchboard.error.code, 'OUTPUT_SCHEMA_VIOLATION')
      const big = (await a2a.send('replier', { message: message([{ data: { big: true } }]) })).task
      assert.equal(big.status.state, 'TASK_STATE_FAILED')
      assert.equal(big.status.message.metadata.switchboard.error.code, 'AGENT_ERROR')
      assert.match(big.status.message.parts[0].text, /limited to 1048576/)
    })
  })
}

describe('messages from the agent over Clawpedia', () => {
  const base = () => server.base('replier')
  const create = async (input: object) => {
    const created = await http(`${base()}/tasks`, { body: { input } })
    assert.equal(created.status, 202, JSON.stringify(created.body))
    return created.body.task_id as string
  }
  /**
   * The task once its stream has shown `status`. A terminal status ends the stream by itself (and
   * readSse must not abort a response that has ended: it would wait for its copy of the body forever).
   */
  const until = async (taskId: string, status: string): Promise<Json> => {
    const terminal = ['COMPLETED', 'FAILED', 'CANCELLED'].includes(status)
    const stream = await readSse(`${base()}/tasks/${taskId}/stream`, {
      ...(!terminal && { stopWhen: (e) => e.event === 'status' && JSON.parse(e.data).status === status }),
    })
    const last = stream.events.filter((e) => e.event === 'status').at(-1)
    assert.ok(last, `no status frame for task ${taskId}`)
    const task = JSON.parse(last.data)
    assert.equal(task.status, status)
    assert.deepEqual(validateClawpediaTask(task), [], JSON.stringify(task))
    return task
  }

  it('a direct reply is a COMPLETED task whose output is the reply as { text, data }', async () => {
    const taskId = await create({ say: 'hi' })
    const task = await until(taskId, 'COMPLETED')
    assert.deepEqual(task.output, { text: 'You said: hi', data: { length: 2 } })
    assert.equal(task.message.text, 'You said: hi')
    const read = (await http(`${base()}/tasks/${taskId}`)).body
    assert.deepEqual(read.output, task.output)
    const artifacts = (await http(`${base()}/tasks/${taskId}/artifacts`)).body
    assert.deepEqual(artifacts.artifacts, [])
  })

  it('a final message beside an output, and beside an error', async () => {
    const done = await until(await create({ final: true }), 'COMPLETED')
    assert.deepEqual(done.output, { ok: true })
    assert.deepEqual(done.message, { message_id: done.message.message_id, text: 'Done.' })
    const failed = await until(await create({ fail: true }), 'FAILED')
    assert.deepEqual(failed.error, { code: 'NOPE', message: 'no can do' })
    assert.equal(failed.message.text, 'Sorry, I cannot.')
    assert.deepEqual(failed.message.data, { retry: false })
    const nothing = await until(await create({ nothing: true }), 'COMPLETED')
    assert.deepEqual(nothing.output, {})
  })

  it('an answer without a message reads as one: { text } as a text part, anything else as data', async () => {
    const first = await create({ ask: true })
    await until(first, 'INPUT_REQUIRED')
    assert.equal(
      (await http(`${base()}/tasks/${first}/input`, { body: { input: { text: 'Ada' } } })).status,
      202,
    )
    const byText = await until(first, 'COMPLETED')
    assert.deepEqual(byText.output.answer, {
      messageId: null,
      text: 'Ada',
      data: null,
      kinds: ['text'],
      input: { text: 'Ada' },
    })
    const second = await create({ ask: true })
    await until(second, 'INPUT_REQUIRED')
    await http(`${base()}/tasks/${second}/input`, { body: { input: { name: 'Grace' } } })
    const byData = await until(second, 'COMPLETED')
    assert.equal(byData.message.text, 'Thanks, Grace')
    assert.deepEqual(byData.output.answer.kinds, ['data'])
    assert.deepEqual(byData.output.answer.data, { name: 'Grace' })
  })
})
