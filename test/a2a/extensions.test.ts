/**
 * A2A extensions: declared in the card, activated per request by the A2A-Extensions header,
 * echoed in the response, required ones enforced (ExtensionSupportRequiredError) before anything
 * is stored, and the activated ones visible to the handler (`ctx.extensions`) on every run of its
 * task, replays included. Both bindings, and the official SDK client.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, beforeEach, describe, it } from 'node:test'
import { SendMessageRequest, TaskState } from '@a2a-js/sdk'
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client'
import { ExtensionSupportRequiredError } from '@a2a-js/sdk/errors'
import { defineAgent } from '../../src/agent/define.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { formatExtensions, parseExtensions } from '../../src/dialects/a2a/wire/service-parameters.ts'
import { CITATIONS, guarded, OLD_CITATIONS, offering, runs, SIGNED } from '../fixtures/extension-agents.ts'
import { checkCard } from '../helpers/a2a-schema.ts'
import { getTask, sendMessage, streamMessage, subscribe, taskCount } from './binding-calls.ts'
import { BINDINGS, type Binding, http, readSse, startA2a, type TestServer } from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ agents: [...demoAgents, guarded, offering] })
})
after(() => server.close())
beforeEach(() => {
  runs.length = 0
})

const base = () => server.base('guarded')
const message = (data: object, extra: object = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...extra },
})
const activating = (...uris: string[]) => ({ 'A2A-Extensions': uris.join(', ') })

describe('A2A extensions', () => {
  it('are declared in the card: uri, description, required, params', async () => {
    const card = (await http(`${base()}/.well-known/agent-card.json`)).body
    checkCard(card)
    assert.deepEqual(card.capabilities.extensions, [
      { uri: SIGNED, description: 'Messages carry a detached signature.', required: true },
      { uri: CITATIONS, description: 'Artifacts cite their sources.', params: { style: 'apa' } },
    ])
    const plain = (await http(`${server.base('long-runner')}/.well-known/agent-card.json`)).body
    assert.equal(plain.capabilities.extensions, undefined, 'no extensions: no list')
  })

  for (const binding of BINDINGS) {
    describe(binding, () => {
      it('a message without a required extension is ExtensionSupportRequiredError, and nothing is stored', async () => {
        const before = await taskCount(binding, base())
        for (const headers of [{}, activating(CITATIONS)]) {
          const refused = await sendMessage(binding, base(), message({}), headers)
          assert.equal(refused.error?.reason, 'EXTENSION_SUPPORT_REQUIRED')
          if (binding === 'JSONRPC') assert.equal(refused.error.jsonRpcCode, -32008)
          else assert.equal(refused.status, 400)
          assert.equal(refused.error.metadata.requiredExtensions, SIGNED)
          assert.match(refused.error.message, /A2A-Extensions/)
        }
        const streamed = await streamMessage(binding, base(), message({}))
        assert.equal(streamed.events.length, 0)
        assert.equal(streamed.answer?.error?.reason, 'EXTENSION_SUPPORT_REQUIRED')
        assert.equal(await taskCount(binding, base()), before)
        assert.equal(runs.length, 0)
      })

      it('activates the declared ones requested, in card order, echoes them, and the handler sees them', async () => {
        const sent = await sendMessage(
          binding,
          base(),
          message({}),
          activating(OLD_CITATIONS, CITATIONS, 'https://example.org/unknown', SIGNED),
        )
        assert.equal(sent.error, undefined, JSON.stringify(sent.error))
        assert.equal(sent.headers.get('a2a-extensions'), `${SIGNED},${CITATIONS}`)
        const task = sent.result.task
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
        assert.deepEqual(runs, [{ taskId: task.id, extensions: [SIGNED, CITATIONS] }])
        assert.ok(Object.isFrozen(runs[0]!.extensions))
        // Reading needs no extension, and is echoed only what it asked for.
        const read = await getTask(binding, base(), task.id)
        assert.equal(read.result.id, task.id)
        assert.equal(read.headers.get('a2a-extensions'), null)
        const again = await getTask(binding, base(), task.id, activating(CITATIONS))
        assert.equal(again.headers.get('a2a-extensions'), CITATIONS)
      })

      it('echoes on a stream, and the task keeps what it was created with across a replay', async () => {
        const stream = await streamMessage(
          binding,
          base(),
          message({ ask: true }),
          activating(SIGNED, CITATIONS),
        )
        assert.equal(stream.status, 200)
        assert.equal(stream.headers.get('a2a-extensions'), `${SIGNED},${CITATIONS}`)
        const first = JSON.parse(stream.events[0]!.data)
        const task = (first.result ?? first).task
        // The answer activates only the required one; the run it resumes (a replay) still sees both.
        const answered = await sendMessage(
          binding,
          base(),
          message({}, { taskId: task.id }),
          activating(SIGNED),
        )
        assert.equal(answered.headers.get('a2a-extensions'), SIGNED)
        assert.equal(answered.result.task.status.state, 'TASK_STATE_COMPLETED')
        assert.deepEqual(
          runs.map((run) => run.extensions),
          [
            [SIGNED, CITATIONS],
            [SIGNED, CITATIONS],
          ],
        )
        const artifact = answered.result.task.artifacts.find((a: { name: string }) => a.name === 'output')
        assert.deepEqual(artifact.parts[0].data, { extensions: [SIGNED, CITATIONS] })
        const watched = await subscribe(binding, base(), task.id, { headers: activating(CITATIONS) })
        assert.equal(
          watched.answer?.error?.reason,
          'UNSUPPORTED_OPERATION',
          'a terminal task, not a missing extension',
        )
        assert.equal(watched.headers.get('a2a-extensions'), CITATIONS)
      })

      it('a follow-up message is refused without the required extension too, and the task is untouched', async () => {
        const asked = await sendMessage(binding, base(), message({ ask: true }), activating(SIGNED))
        const task = asked.result.task
        assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED')
        const refused = await sendMessage(binding, base(), message({}, { taskId: task.id }))
        assert.equal(refused.error?.reason, 'EXTENSION_SUPPORT_REQUIRED')
        const read = await getTask(binding, base(), task.id)
        assert.equal(read.result.status.state, 'TASK_STATE_INPUT_REQUIRED')
        assert.equal(read.result.history.length, task.history.length)
      })

      it('an optional extension is inactive unless asked for', async () => {
        const offered = server.base('offering')
        const without = await sendMessage(binding, offered, message({}))
        assert.equal(without.headers.get('a2a-extensions'), null)
        assert.deepEqual(without.result.task.artifacts[0].parts[0].data, { extensions: [] })
        const withIt = await sendMessage(binding, offered, message({}), activating(CITATIONS))
        assert.equal(withIt.headers.get('a2a-extensions'), CITATIONS)
        assert.deepEqual(withIt.result.task.artifacts[0].parts[0].data, { extensions: [CITATIONS] })
      })
    })
  }

  for (const binding of BINDINGS) {
    it(`@a2a-js/sdk over ${binding}: withA2AExtensions activates them; without, ExtensionSupportRequiredError`, async () => {
      const echoes: (string | null)[] = []
      const fetchImpl: typeof fetch = async (input, init) => {
        const response = await fetch(input, init)
        echoes.push(response.headers.get('a2a-extensions'))
        return response
      }
      const factory = new ClientFactory({
        transports: [
          binding === ('JSONRPC' satisfies Binding)
            ? new JsonRpcTransportFactory({ fetchImpl })
            : new RestTransportFactory({ fetchImpl }),
        ],
      })
      const client = await factory.createFromUrl(`${base()}/`)
      const request = SendMessageRequest.fromJSON(message({}))
      await assert.rejects(client.sendMessage(request), ExtensionSupportRequiredError)
      echoes.length = 0
      const result = await client.sendMessage(SendMessageRequest.fromJSON(message({})), {
        serviceParameters: ServiceParameters.create(withA2AExtensions(SIGNED, CITATIONS)),
      })
      assert.ok('id' in result)
      assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED)
      assert.deepEqual(echoes, [`${SIGNED},${CITATIONS}`])
      assert.deepEqual(runs.at(-1)?.extensions, [SIGNED, CITATIONS])
    })
  }
})

describe('extensions and the Clawpedia dialect', () => {
  it('refuses work for an agent with a required extension, which Clawpedia cannot activate', async () => {
    const before = await taskCount('JSONRPC', base())
    const created = await http(`${base()}/tasks`, { body: { input: {} } })
    assert.equal(created.status, 400)
    assert.equal(created.body.error.code, 'EXTENSION_SUPPORT_REQUIRED')
    assert.equal(created.body.error.details.requiredExtensions, SIGNED)
    assert.equal(await taskCount('JSONRPC', base()), before, 'nothing stored')
    // A task made over A2A cannot be answered over Clawpedia either; reading it can.
    const asked = await sendMessage('JSONRPC', base(), message({ ask: true }), activating(SIGNED))
    const id = asked.result.task.id
    const answered = await http(`${base()}/tasks/${id}/input`, { body: { input: {} } })
    assert.equal(answered.status, 400)
    assert.equal(answered.body.error.code, 'EXTENSION_SUPPORT_REQUIRED')
    const read = await http(`${base()}/tasks/${id}`)
    assert.equal(read.status, 200)
    assert.equal(read.body.status, 'INPUT_REQUIRED')
  })

  it('serves an agent whose extensions are optional, with none active', async () => {
    const created = await http(`${server.base('offering')}/tasks`, { body: { input: {} } })
    assert.equal(created.status, 202)
    const stream = await readSse(`${server.base('offering')}/tasks/${created.body.task_id}/stream`)
    assert.deepEqual(JSON.parse(stream.events.at(-1)!.data).output, { extensions: [] })
  })
})

describe('the A2A-Extensions value', () => {
  it('is comma-separated, across header lines too; blanks and repeats are dropped', () => {
    assert.deepEqual(parseExtensions(undefined), [])
    assert.deepEqual(parseExtensions(' , '), [])
    assert.deepEqual(parseExtensions(`${SIGNED} ,${CITATIONS},${SIGNED}`), [SIGNED, CITATIONS])
    assert.deepEqual(parseExtensions([CITATIONS, ` ${SIGNED}, ${CITATIONS}`]), [CITATIONS, SIGNED])
    assert.equal(formatExtensions([SIGNED, CITATIONS]), `${SIGNED},${CITATIONS}`)
  })
})

describe('defineAgent extensions', () => {
  const agent = (extensions: unknown) =>
    defineAgent({
      id: randomUUID(),
      name: 'Bad',
      description: 'Declares bad extensions.',
      inputSchema: { type: 'object' },
      extensions: extensions as never,
      handler: () => ({}),
    })

  it('refuses a URI that cannot be activated, a duplicate, and params that are not an object', () => {
    for (const [extensions, pattern] of [
      [[{ uri: 'not a uri' }], /absolute URI/],
      [[{ uri: 'https://example.org/a,b' }], /without commas/],
      [[{}], /absolute URI/],
      [[{ uri: SIGNED }, { uri: SIGNED }], /declared twice/],
      [[{ uri: SIGNED, params: [1] }], /params must be a JSON object/],
      ['nope', /must be an array/],
    ] as const) {
      assert.throws(() => agent(extensions), pattern)
    }
    assert.doesNotThrow(() => agent([{ uri: 'urn:example:ext:v1', required: false }]))
  })
})
