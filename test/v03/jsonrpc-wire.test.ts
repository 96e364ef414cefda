/**
 * The 0.3 converters on their own (pure, shared by server and client), and the 0.3 answers that
 * only some agents produce: a direct reply (a Message), and a stream that ends at auth-required.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { A2A_TASK_STATES } from '../../src/dialects/a2a/wire/states.ts'
import {
  fromV03Message,
  fromV03PushConfig,
  fromV03SendParams,
  fromV03StreamEvent,
} from '../../src/dialects/a2a/wire/v03/from-v03.ts'
import type { V03Message } from '../../src/dialects/a2a/wire/v03/shapes.ts'
import { fromV03State, toV03State } from '../../src/dialects/a2a/wire/v03/states.ts'
import {
  toV03Message,
  toV03Part,
  toV03SendParams,
  toV03StreamEvent,
} from '../../src/dialects/a2a/wire/v03/to-v03.ts'
import { isSwitchboardError } from '../../src/model/errors.ts'
import { rpc, startA2a, type TestServer } from '../a2a/helpers.ts'
import { calendarAgent } from '../fixtures/auth-agents.ts'
import { replierAgent } from '../helpers/reply-agents.ts'
import { readSse } from '../helpers/sse.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'
import { checkV03 } from './helpers.ts'

describe('the 0.3 converters', () => {
  it('every state has one 0.3 name and back; unspecified is unknown', () => {
    for (const state of A2A_TASK_STATES) assert.equal(fromV03State(toV03State(state)), state)
    assert.equal(toV03State('TASK_STATE_INPUT_REQUIRED'), 'input-required')
    assert.equal(toV03State('TASK_STATE_UNSPECIFIED'), 'unknown')
    assert.equal(fromV03State('some-new-state'), 'TASK_STATE_UNSPECIFIED')
  })

  it('a message of every part kind goes to 1.0 and back unchanged', () => {
    const message: V03Message = {
      kind: 'message',
      messageId: 'm-1',
      role: 'user',
      contextId: 'c-1',
      taskId: 't-1',
      referenceTaskIds: ['t-0'],
      extensions: ['urn:x'],
      metadata: { a: 1 },
      parts: [
        { kind: 'text', text: 'hello', metadata: { lang: 'en' } },
        { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
        { kind: 'file', file: { uri: 'https://example.org/x.pdf', mimeType: 'application/pdf' } },
        { kind: 'data', data: { n: 1 } },
      ],
    }
    checkV03('Message', message)
    const v10 = fromV03Message(message)
    assert.deepEqual(v10.parts, [
      { text: 'hello', metadata: { lang: 'en' } },
      { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
      { url: 'https://example.org/x.pdf', mediaType: 'application/pdf' },
      { data: { n: 1 } },
    ])
    assert.equal(v10.role, 'ROLE_USER')
    assert.deepEqual(toV03Message(v10), message)
  })

  it('1.0 data that is not an object is wrapped under "value" (0.3 data is always an object)', () => {
    assert.deepEqual(toV03Part({ data: [1, 2] }), { kind: 'data', data: { value: [1, 2] } })
    assert.deepEqual(toV03Part({ data: 'x', mediaType: 'application/json' }), {
      kind: 'data',
      data: { value: 'x' },
    })
  })

  it('blocking is the opposite of returnImmediately; the push config is flattened', () => {
    const params = {
      message: {
        kind: 'message' as const,
        messageId: 'm',
        role: 'user' as const,
        parts: [{ kind: 'text' as const, text: 'x' }],
      },
      configuration: {
        blocking: false,
        historyLength: 2,
        acceptedOutputModes: ['text/plain'],
        pushNotificationConfig: {
          url: 'https://hooks.example/a',
          token: 't',
          authentication: { schemes: ['Bearer'], credentials: 'c' },
        },
      },
    }
    const v10 = fromV03SendParams(params)
    assert.deepEqual(v10.configuration, {
      acceptedOutputModes: ['text/plain'],
      returnImmediately: true,
      historyLength: 2,
      taskPushNotificationConfig: {
        url: 'https://hooks.example/a',
        token: 't',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      },
    })
    assert.deepEqual(toV03SendParams(v10 as Parameters<typeof toV03SendParams>[0]), params)
    const blocking = fromV03SendParams({ ...params, configuration: { blocking: true } })
    assert.deepEqual(blocking.configuration, {}, 'blocking is 1.0 default')
  })

  it('credentials without a scheme are refused, naming the 0.3 field', () => {
    assert.throws(
      () =>
        fromV03PushConfig({ url: 'https://h.example', authentication: { schemes: [], credentials: 'c' } }),
      (error: unknown) => isSwitchboardError(error) && /authentication\/schemes/.test(error.message),
    )
    assert.deepEqual(fromV03PushConfig({ url: 'https://h.example', authentication: { schemes: [] } }), {
      url: 'https://h.example',
    })
  })

  it('a stream event round-trips; final is the caller’s to set', () => {
    const update = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } },
    }
    const event = toV03StreamEvent(update, true)
    checkV03('TaskStatusUpdateEvent', event)
    assert.deepEqual(event, {
      kind: 'status-update',
      taskId: 't',
      contextId: 'c',
      status: { state: 'working' },
      final: true,
    })
    assert.deepEqual(fromV03StreamEvent(event), update)
  })
})

describe('0.3 answers some agents give', () => {
  let server: TestServer
  before(async () => {
    server = await startA2a({
      agents: [replierAgent, calendarAgent],
      identity: { authenticators: [testAuthenticator] },
    })
  })
  after(() => server?.close())
  const alice = bearer('alice', 'acme')
  const userMessage = (parts: object[]) => ({
    message: { kind: 'message', messageId: randomUUID(), role: 'user', parts },
  })
  /** message/stream to an agent, as alice, read to its end. */
  const streamTo = (slug: string, parts: object[]) =>
    readSse(`${server.base(slug)}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...alice },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: userMessage(parts) }),
    })

  it('a direct reply: message/send answers a 0.3 Message from the agent; message/stream, that one event', async () => {
    const { body } = await rpc(
      server.base('replier'),
      'message/send',
      userMessage([{ kind: 'text', text: 'hi' }]),
      alice,
    )
    checkV03('Message', body.result)
    assert.equal(body.result.kind, 'message')
    assert.equal(body.result.role, 'agent')
    assert.deepEqual(body.result.parts, [
      { kind: 'text', text: 'You said: hi' },
      { kind: 'data', data: { length: 2 } },
    ])
    const streamed = await streamTo('replier', [{ kind: 'text', text: 'yo' }])
    assert.deepEqual(
      streamed.events.map((e) => JSON.parse(e.data).result.kind),
      ['message'],
    )
  })

  it('a stream ends at auth-required, that update final', async () => {
    const streamed = await streamTo('calendar', [{ kind: 'data', data: { skipWeek: true } }])
    assert.ok(streamed.closedByServer, 'the server ended the stream')
    const last = JSON.parse(streamed.events.at(-1)!.data).result
    assert.equal(last.status.state, 'auth-required')
    assert.equal(last.final, true)
    assert.match(last.status.message.parts[0].text, /Authorize access to your calendar/)
  })
})
