/**
 * The A2A 0.3 HTTP+JSON converters (wire/v03/rest-*.ts), without a server: the 0.3 ProtoJSON
 * shapes ⇄ the 1.0 ones, what is dropped or wrapped on the way, and the decisions the spec leaves
 * open (blocking by default, historyLength 0, push config bodies and ids, the extended card).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { A2aAgentCard, A2aTask } from '../../src/dialects/a2a/wire/shapes.ts'
import {
  partFromV03,
  partToV03,
  streamResponseFromV03,
  streamResponseToV03,
  taskToV03,
} from '../../src/dialects/a2a/wire/v03/rest-objects.ts'
import {
  cardToV03,
  createPushConfigFromV03,
  pushConfigToV03,
  sendRequestFromV03,
  sendRequestToV03,
} from '../../src/dialects/a2a/wire/v03/rest-requests.ts'
import { isSwitchboardError } from '../../src/model/errors.ts'

const userMessage = { messageId: 'm1', role: 'ROLE_USER', content: [{ text: 'hi' }] }
const invalid = (pattern: RegExp) => (error: unknown) => {
  assert.ok(isSwitchboardError(error))
  assert.equal(error.code, 'INVALID_REQUEST')
  assert.match(error.message, pattern)
  return true
}

describe('A2A 0.3 REST wire: parts and objects', () => {
  it('maps each part kind both ways; what 0.3 cannot carry is dropped or wrapped', () => {
    assert.deepEqual(partToV03({ text: 'a', metadata: { x: 1 } }), { text: 'a' })
    assert.deepEqual(partToV03({ url: 'https://e.org/f', mediaType: 'text/csv', filename: 'f.csv' }), {
      file: { fileWithUri: 'https://e.org/f', mimeType: 'text/csv' },
    })
    assert.deepEqual(partToV03({ raw: 'AAEC' }), { file: { fileWithBytes: 'AAEC' } })
    assert.deepEqual(partToV03({ data: { n: 1 } }), { data: { data: { n: 1 } } })
    assert.deepEqual(partToV03({ data: [1, 2] }), { data: { data: { value: [1, 2] } } })
    assert.deepEqual(partFromV03({ file: { file_with_bytes: 'AAEC', mime_type: 'image/png' } }), {
      raw: 'AAEC',
      mediaType: 'image/png',
    })
    assert.deepEqual(partFromV03({ file: { fileWithUri: 'https://e.org/f' } }), { url: 'https://e.org/f' })
    assert.deepEqual(partFromV03({ data: { data: { n: 1 } } }), { data: { n: 1 } })
  })

  it('spells the cancelled state the 0.3 way, and reads it (and enum numbers) back', () => {
    const task: A2aTask = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_CANCELED', timestamp: '2026-01-01T00:00:00.000Z' },
      history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], referenceTaskIds: ['r'] }],
    }
    const wire = taskToV03(task)
    assert.equal(wire.status.state, 'TASK_STATE_CANCELLED')
    assert.deepEqual(wire.history, [{ messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] }])
    const back = streamResponseFromV03({ task: { ...wire, status: { state: 5 } } }) as { task: A2aTask }
    assert.equal(back.task.status.state, 'TASK_STATE_CANCELED')
    assert.deepEqual(back.task.history?.[0]?.parts, [{ text: 'x' }])
  })

  it('marks a status update final only when told to', () => {
    const update = { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } }
    assert.deepEqual(streamResponseToV03({ statusUpdate: update }), { statusUpdate: update })
    assert.equal(
      (streamResponseToV03({ statusUpdate: update }, true) as { statusUpdate: { final?: boolean } })
        .statusUpdate.final,
      true,
    )
  })
})

describe('A2A 0.3 REST wire: requests', () => {
  it('blocks with no configuration (the 0.3 default), not with one that leaves blocking out (the proto default)', () => {
    assert.equal(
      (sendRequestFromV03({ message: userMessage }).configuration as { returnImmediately: boolean })
        .returnImmediately,
      false,
    )
    const loose = sendRequestFromV03({ message: userMessage, configuration: { historyLength: 0 } })
    assert.deepEqual(loose.configuration, { returnImmediately: true })
    const blocking = sendRequestFromV03({
      message: userMessage,
      configuration: { blocking: true, historyLength: 3 },
    })
    assert.deepEqual(blocking.configuration, { returnImmediately: false, historyLength: 3 })
  })

  it('converts the message (proto names, role numbers) and the push config of a send', () => {
    const request = sendRequestFromV03({
      message: { message_id: 'm2', role: 1, content: [{ text: 'hi' }], context_id: 'ctx' },
      configuration: {
        blocking: true,
        push_notification: {
          url: 'https://e.org/h',
          authentication: { schemes: ['Basic', 'Bearer'], credentials: 'x' },
        },
      },
    })
    assert.deepEqual(request.message, {
      messageId: 'm2',
      role: 'ROLE_USER',
      parts: [{ text: 'hi' }],
      contextId: 'ctx',
    })
    assert.deepEqual((request.configuration as Record<string, unknown>).taskPushNotificationConfig, {
      url: 'https://e.org/h',
      authentication: { scheme: 'Basic', credentials: 'x' },
    })
  })

  it('refuses a bad send naming the 0.3 field', () => {
    assert.throws(() => sendRequestFromV03({ message: { ...userMessage, content: [] } }), invalid(/content/))
    assert.throws(
      () => sendRequestFromV03({ message: { ...userMessage, content: [{ data: [1] }] } }),
      invalid(/data/),
    )
    assert.throws(() => sendRequestFromV03('text'), invalid(/JSON object/))
    assert.throws(
      () =>
        sendRequestFromV03({
          message: userMessage,
          configuration: {
            pushNotification: { url: 'https://e.org', authentication: { schemes: [], credentials: 'c' } },
          },
        }),
      invalid(/schemes/),
    )
  })

  it('takes a push config in either body shape; the id from configId, the config, or its name', () => {
    const spec = createPushConfigFromV03(
      { parent: 'tasks/t', configId: 'a', config: { pushNotificationConfig: { url: 'https://e.org/1' } } },
      't',
    )
    assert.deepEqual(spec, { url: 'https://e.org/1', id: 'a', taskId: 't' })
    const bare = createPushConfigFromV03(
      {
        name: 'tasks/other/pushNotificationConfigs/b',
        pushNotificationConfig: { url: 'https://e.org/2', token: 'k' },
      },
      't',
    )
    assert.deepEqual(bare, { url: 'https://e.org/2', token: 'k', id: 'b', taskId: 't' })
    assert.deepEqual(createPushConfigFromV03({ pushNotificationConfig: { url: 'https://e.org/3' } }, 't'), {
      url: 'https://e.org/3',
      taskId: 't',
    })
    assert.throws(
      () => createPushConfigFromV03({ pushNotificationConfig: { url: 'ftp://e.org' } }, 't'),
      invalid(/url/),
    )
    assert.deepEqual(
      pushConfigToV03({ taskId: 't', id: 'a', url: 'https://e.org/1', authentication: { scheme: 'Bearer' } }),
      {
        name: 'tasks/t/pushNotificationConfigs/a',
        pushNotificationConfig: { id: 'a', url: 'https://e.org/1', authentication: { schemes: ['Bearer'] } },
      },
    )
  })

  it('writes a client request the 0.3 way: content, blocking even when false, the wrapped push config', () => {
    const body = sendRequestToV03({
      message: {
        messageId: 'm',
        role: 'ROLE_USER',
        parts: [{ data: { a: 1 }, mediaType: 'application/json' }],
      },
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: {
          url: 'https://e.org/h',
          token: 't',
          authentication: { scheme: 'Bearer', credentials: 'c' },
        },
      },
    })
    assert.deepEqual(body, {
      message: { messageId: 'm', role: 'ROLE_USER', content: [{ data: { data: { a: 1 } } }] },
      configuration: {
        blocking: false,
        pushNotification: {
          url: 'https://e.org/h',
          token: 't',
          authentication: { schemes: ['Bearer'], credentials: 'c' },
        },
      },
    })
  })
})

describe('A2A 0.3 REST wire: the extended card', () => {
  const card = {
    name: 'A',
    description: 'd',
    supportedInterfaces: [
      { url: 'https://h/a/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://h/a/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    version: '1',
    capabilities: { streaming: true, extendedAgentCard: true },
    securitySchemes: { k: { httpAuthSecurityScheme: { scheme: 'Bearer' }, type: 'http', scheme: 'Bearer' } },
    securityRequirements: [{ schemes: { k: {} } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [{ protected: 'p', signature: 's' }],
  } as A2aAgentCard

  it('derives the 0.3 fields from the 0.3 interfaces, keeps the proto shape of security, drops signatures', () => {
    const wire = cardToV03(card)
    assert.equal(wire.url, 'https://h/a/a2a/rest')
    assert.equal(wire.preferredTransport, 'HTTP+JSON')
    assert.deepEqual(wire.additionalInterfaces, [{ url: 'https://h/a/a2a/rest', transport: 'HTTP+JSON' }])
    assert.equal(wire.protocolVersion, '0.3.0')
    assert.equal(wire.supportsAuthenticatedExtendedCard, true)
    assert.deepEqual(wire.securitySchemes, { k: { httpAuthSecurityScheme: { scheme: 'Bearer' } } })
    assert.deepEqual(wire.security, [{ schemes: { k: {} } }])
    assert.equal('signatures' in wire, false)
  })
})
