/**
 * The pieces behind messages from the agent, on their own: the `reply()` builder, how a run's
 * outcome is made from what the handler returned or threw, how the fold records final messages
 * and answers, and what `ctx.ask` resolves with.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AgentError, defineAgent, TaskRejection } from '../../src/agent/define.ts'
import { reply } from '../../src/agent/reply.ts'
import { answerInput, answerMessage } from '../../src/engine/input.ts'
import { completion, failure } from '../../src/engine/outcome.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { fold } from '../../src/model/fold.ts'
import { data, file, text } from '../../src/model/parts.ts'
import { isDirectReply, messageJson } from '../../src/model/replies.ts'
import type { TaskHeader } from '../../src/model/task.ts'

const hosted = (outputSchema?: Record<string, unknown>) =>
  new AgentRegistry([
    defineAgent({
      id: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d',
      slug: 'unit',
      name: 'Unit',
      description: 'An agent for unit tests.',
      inputSchema: { type: 'object' },
      ...(outputSchema && { outputSchema }),
      handler: () => undefined,
    }),
  ]).get('unit')

const header: TaskHeader = {
  id: '01a22f91-0000-7000-8000-000000000001',
  tenant: 'default',
  owner: 'default',
  agent: 'unit',
  contextId: 'ctx',
  createdAt: '2026-01-01T00:00:00.000Z',
}

const events = (...bodies: object[]): TaskEvent[] =>
  bodies.map((body, i) => ({ ...body, seq: i + 1, at: `2026-01-01T00:00:0${i}.000Z` }) as TaskEvent)

describe('reply()', () => {
  it('builds text, data and parts in that order, with an optional output', () => {
    const built = reply({
      text: 'hi',
      data: [1, 2],
      parts: [file({ url: 'https://example.org/a.pdf' })],
      output: { n: 1 },
    })
    assert.deepEqual(
      built.parts.map((p) => p.kind),
      ['text', 'data', 'url'],
    )
    assert.deepEqual(built.output, { n: 1 })
    assert.deepEqual(reply('plain').parts, [{ kind: 'text', text: 'plain' }])
  })

  it('refuses what is not a message: no content, a part that is none, an output that is no object', () => {
    assert.throws(() => reply({}), /needs some content/)
    assert.throws(() => reply({ parts: [{ kind: 'text' } as never] }), /needs a string text/)
    assert.throws(() => reply({ parts: [{ kind: 'blob' } as never] }), /is not a part/)
    assert.throws(() => reply({ text: 'x', output: [] as never }), /output must be a JSON object/)
    assert.throws(() => reply(42 as never), /takes a text/)
    assert.throws(
      () => new AgentError('X', 'x', undefined, { reply: { text: 'y', output: {} } as never }),
      /no output/,
    )
  })
})

describe('a run’s outcome', () => {
  it('nothing returned: COMPLETED without an output, unless the output schema wants one', () => {
    assert.deepEqual(completion(undefined, hosted()), { kind: 'status', state: 'COMPLETED' })
    const strict = hosted({ type: 'object', required: ['n'] })
    assert.equal(completion(undefined, strict).state, 'FAILED')
    assert.deepEqual(completion({}, hosted()), { kind: 'status', state: 'COMPLETED', output: {} })
  })

  it('a reply: the final message; without an output, { text, data } is what the schema checks', () => {
    const status = completion(reply({ text: 'hi', data: 3 }), hosted())
    assert.equal(status.state, 'COMPLETED')
    assert.equal(status.output, undefined)
    assert.equal(status.message?.role, 'agent')
    assert.deepEqual(status.message?.parts, [text('hi'), data(3)])
    const strict = hosted({ type: 'object', required: ['text'] })
    assert.equal(completion(reply({ data: 3 }), strict).error?.code, 'OUTPUT_SCHEMA_VIOLATION')
    assert.equal(completion(reply('ok'), strict).state, 'COMPLETED')
    const withOutput = completion(reply({ text: 'done', output: { n: 1 } }), strict)
    assert.equal(withOutput.state, 'FAILED', 'an output is checked as the output')
  })

  it('a reply from another copy of the package is recognised by its brand', () => {
    const foreign = { [Symbol.for('switchboard.reply')]: true, parts: [text('from afar')], output: undefined }
    assert.deepEqual(completion(foreign, hosted()).message?.parts, [text('from afar')])
  })

  it('a reply that cannot be written fails the task', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    assert.equal(completion(reply({ data: cyclic }), hosted()).error?.code, 'AGENT_ERROR')
    assert.match(completion(reply('x'.repeat(1024 * 1024)), hosted()).error?.message ?? '', /limited to/)
  })

  it('a thrown AgentError or TaskRejection keeps its error and carries its reply', () => {
    const failed = failure(new AgentError('NOPE', 'no', { why: 1 }, { reply: 'Sorry.' }))
    assert.ok(failed.kind === 'status')
    assert.deepEqual(failed.error, { code: 'NOPE', message: 'no', details: { why: 1 } })
    assert.deepEqual(failed.message?.parts, [text('Sorry.')])
    const rejected = failure(new TaskRejection('not mine', 'NOT_MINE', { reply: { data: { next: 'b' } } }))
    assert.ok(rejected.kind === 'status')
    assert.equal(rejected.state, 'REJECTED')
    assert.deepEqual(rejected.message?.parts, [data({ next: 'b' })])
    const plain = failure(new AgentError('NOPE', 'no'))
    assert.ok(plain.kind === 'status')
    assert.equal(plain.message, undefined)
  })
})

describe('the fold and the answers', () => {
  const user = { messageId: 'u1', role: 'user' as const, parts: [text('hi')] }
  const agent = { messageId: 'a1', role: 'agent' as const, parts: [text('hello')] }

  it('a final message is the status message and a history turn; a direct reply is nothing else', () => {
    const task = fold(
      header,
      events(
        { kind: 'input', input: {}, text: 'hi', message: user },
        { kind: 'status', state: 'SUBMITTED' },
        { kind: 'status', state: 'WORKING' },
        { kind: 'status', state: 'COMPLETED', message: agent },
      ),
    )
    assert.deepEqual(task.statusMessage, agent)
    assert.deepEqual(task.history, [user, agent])
    assert.ok(isDirectReply(task))
    assert.equal(isDirectReply({ ...task, logCount: 1 }), false, 'a log line makes it a task')
    assert.equal(isDirectReply({ ...task, output: {} }), false)
    assert.equal(isDirectReply({ ...task, statusMessage: undefined }), false)
  })

  it('an answer records its message id; ctx.ask gets the message back', () => {
    const answer = { messageId: 'u2', role: 'user' as const, parts: [text('Ada'), data({ age: 36 })] }
    const task = fold(
      header,
      events(
        { kind: 'input', input: {}, message: user },
        { kind: 'status', state: 'SUBMITTED' },
        { kind: 'status', state: 'WORKING' },
        {
          kind: 'status',
          state: 'INPUT_REQUIRED',
          prompt: 'Name?',
          messageId: 'q1',
          inputSchema: { type: 'object' },
        },
        { kind: 'input', input: { age: 36 }, text: 'Ada', message: answer },
      ),
    )
    assert.deepEqual(task.answers, [{ input: { age: 36 }, text: 'Ada', messageId: 'u2' }])
    assert.deepEqual(answerMessage(task.answers[0]!, task.history), {
      input: { age: 36 },
      text: 'Ada',
      messageId: 'u2',
      parts: answer.parts,
      data: { age: 36 },
    })
  })

  it('an answer without a message (Clawpedia) reads as the message a client would send for it', () => {
    assert.deepEqual(answerMessage({ input: { text: 'Ada' } }, []), {
      input: { text: 'Ada' },
      text: 'Ada',
      parts: [text('Ada')],
    })
    assert.deepEqual(answerMessage({ input: { name: 'Ada' } }, []), {
      input: { name: 'Ada' },
      data: { name: 'Ada' },
      parts: [data({ name: 'Ada' })],
    })
  })

  it('a text answer is { text } under the question’s own schema, and left to fromText under the agent’s', () => {
    assert.deepEqual(answerInput({ text: 'Ada' }, { inputSchema: { type: 'object' } }), { text: 'Ada' })
    assert.equal(answerInput({ text: 'Ada' }, {}), undefined)
    assert.deepEqual(answerInput({ input: { a: 1 }, text: 'Ada' }, { inputSchema: {} }), { a: 1 })
  })

  it('messageJson: text parts joined, the first data part', () => {
    assert.deepEqual(messageJson([text('a'), data(1), text('b'), data(2)]), { text: 'a\nb', data: 1 })
    assert.deepEqual(messageJson([file({ url: 'https://example.org/x' })]), {})
  })
})
