/**
 * Our client calls A2A 0.3 agents over JSON-RPC: one served by @a2a-js/sdk 0.3.14 (a 0.3-only
 * card), and ours through its 0.3 card entries; a card with both versions is used at 1.0.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { fromV03JsonRpcError } from '../../src/client/transports/a2a-v03-jsonrpc.ts'
import { connect } from '../../src/client.ts'
import { rejectsWith, stubCard, stubServer } from '../client/helpers.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { runReportBuilder } from './helpers.ts'
import { type Sdk03Server, startSdk03Server } from './sdk03-server.ts'

let peer: Sdk03Server
let ours: TestServer
before(async () => {
  peer = await startSdk03Server()
  ours = await startServer()
})
after(async () => {
  await peer?.close()
  await ours?.close()
})

const textOf = (artifact: { type: string; text?: string } | undefined) =>
  artifact?.type === 'text' ? artifact.text : undefined

describe('our client against an @a2a-js/sdk 0.3.14 agent', () => {
  it('accepts its 0.3-only card: the main url, over JSON-RPC at 0.3', async () => {
    const agent = await connect(peer.url, { cache: false })
    assert.equal(agent.name, 'Tiny 0.3')
    assert.deepEqual(agent.interfaces, [
      { kind: 'jsonrpc', url: `${peer.url}/`, streaming: true, a2aVersion: '0.3' },
    ])
  })

  it('send and wait: the task completes with its artifact', async () => {
    const agent = await connect(peer.url, { cache: false })
    const handle = await agent.send({ text: 'hello' })
    const task = await handle.wait({ timeoutMs: 10_000 })
    assert.equal(task.state, 'COMPLETED')
    assert.equal(textOf(task.artifacts?.find((a) => a.name === 'echo')), 'echo: hello')
    const read = await (await agent.task(handle.id)).refresh()
    assert.equal(read.state, 'COMPLETED')
  })

  it('events: the stream (tasks/resubscribe) to the end', async () => {
    const agent = await connect(peer.url, { cache: false })
    const handle = await agent.send({ text: 'streamed' })
    const updates = []
    for await (const update of handle.events({ via: 'stream', signal: AbortSignal.timeout(10_000) }))
      updates.push(update)
    const last = updates.at(-1)
    assert.equal(last?.type === 'status' && last.task.state, 'COMPLETED')
  })

  it('a multi-turn task: input-required with the question, then the answer completes it', async () => {
    const agent = await connect(peer.url, { cache: false })
    const handle = await agent.send({ text: 'ask' })
    const asked = await handle.wait({ timeoutMs: 10_000 })
    assert.equal(asked.state, 'INPUT_REQUIRED')
    assert.equal(asked.prompt, 'Which colour?')
    await handle.provideInput({ text: 'blue' })
    const done = await handle.wait({ timeoutMs: 10_000 })
    assert.equal(done.state, 'COMPLETED')
    assert.equal(textOf(done.artifacts?.find((a) => a.name === 'answer')), 'colour: blue')
  })

  it('cancel; a missing task is TASK_NOT_FOUND; there is no list in 0.3', async () => {
    const agent = await connect(peer.url, { cache: false })
    const handle = await agent.send({ text: 'hold' })
    const canceled = await handle.cancel()
    assert.equal(canceled.state, 'CANCELLED')
    await assert.rejects(agent.task(randomUUID()), rejectsWith('TASK_NOT_FOUND'))
    await assert.rejects(agent.list({}).next(), rejectsWith('UNSUPPORTED_OPERATION'))
  })
})

describe('our client against our server at 0.3', () => {
  const jsonrpc = () => `${ours.url}/agents/report-builder/a2a/jsonrpc`

  it('a card with both versions: 1.0 first, 0.3 after', async () => {
    const stub = await stubServer(() => ({
      status: 200,
      body: stubCard([
        { url: `${jsonrpc()}?v=0.3`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: jsonrpc(), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ]),
    }))
    try {
      const agent = await connect(stub.url, { cache: false })
      assert.deepEqual(
        agent.interfaces.map((i) => [i.url, i.a2aVersion]),
        [
          [jsonrpc(), undefined],
          [`${jsonrpc()}?v=0.3`, '0.3'],
        ],
      )
    } finally {
      await stub.close()
    }
  })

  it('through a 0.3 entry only: a multi-turn task, followed, then read over 1.0', async () => {
    const stub = await stubServer(() => ({
      status: 200,
      body: stubCard([{ url: jsonrpc(), protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' }]),
    }))
    try {
      const agent = await connect(stub.url, { cache: false })
      const { id, done } = await runReportBuilder(agent)
      const over10 = await connect(`${ours.url}/agents/report-builder`, { cache: false, prefer: ['jsonrpc'] })
      assert.deepEqual((await (await over10.task(id)).refresh()).output, done.output)
    } finally {
      await stub.close()
    }
  })

  it('an answer that is not valid 0.3 is PROTOCOL_ERROR naming the field', async () => {
    const stub = await stubServer((req) =>
      req.method === 'GET'
        ? {
            status: 200,
            body: {
              name: 'Broken',
              description: 'Answers with a task that has no status',
              url: `http://${req.headers.host}/rpc`,
              protocolVersion: '0.3.0',
              version: '1',
              capabilities: {},
              defaultInputModes: ['text/plain'],
              defaultOutputModes: ['text/plain'],
              skills: [],
            },
          }
        : {
            status: 200,
            body: {
              jsonrpc: '2.0',
              id: JSON.parse(req.body).id,
              result: { kind: 'task', id: 't', contextId: 'c' },
            },
          },
    )
    try {
      const agent = await connect(stub.url, { cache: false })
      await assert.rejects(agent.send({ text: 'hi' }), (error: unknown) => {
        rejectsWith('PROTOCOL_ERROR')(error)
        assert.match((error as Error).message, /\/status/)
        return true
      })
    } finally {
      await stub.close()
    }
  })

  it('reads 0.3 error objects as 1.0 ones: reason, metadata, field violations', () => {
    const error = fromV03JsonRpcError(
      {
        code: -32600,
        message: 'this agent requires an extension',
        data: { reason: 'EXTENSION_SUPPORT_REQUIRED', requiredExtensions: 'urn:x' },
      },
      200,
    )
    assert.equal(error.code, 'EXTENSION_SUPPORT_REQUIRED')
    const invalid = fromV03JsonRpcError(
      {
        code: -32602,
        message: 'bad',
        data: {
          reason: 'INVALID_PARAMS',
          fieldViolations: [{ field: '/id', description: '/id is required' }],
        },
      },
      200,
    )
    assert.equal(invalid.code, 'INVALID_REQUEST')
    assert.deepEqual(invalid.details?.violations, [{ field: '/id', description: '/id is required' }])
    assert.equal(
      fromV03JsonRpcError({ code: -32001, message: 'gone', data: 'free text' }, 200).code,
      'TASK_NOT_FOUND',
    )
  })
})
