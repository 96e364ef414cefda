/**
 * Our gRPC client transport against a real @a2a-js/sdk 1.3 gRPC server: a peer that sends no
 * event sequences (no resume: a snapshot on every subscription) and its own error details.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Server, ServerCredentials, type ServerUnaryCall } from '@grpc/grpc-js'
import { type Agent, type ClientError, connect, credentials } from '../../src/client.ts'
import { a2aGrpcService } from '../../src/dialects/a2a/wire/grpc-service.ts'
import { collect, shapes } from '../client/helpers.ts'
import { grpcOnlyCard } from './grpc-only-card.ts'
import { type SdkGrpcAgent, startSdkGrpcAgent } from './sdk-grpc-agent.ts'

let sdk: SdkGrpcAgent
let agent: Agent
before(async () => {
  sdk = await startSdkGrpcAgent()
  agent = await connect(sdk.url, {
    prefer: ['grpc'],
    timeoutMs: 5000,
    cache: false,
    credentials: credentials.bearer('sdk-token'),
    extensions: ['https://example.com/ext/trace/v1'],
  })
})
after(async () => {
  await sdk.close()
})

describe('@a2a-js/sdk over gRPC', () => {
  it("chooses the card's GRPC interface and sends tenant, version, credentials and extensions", async () => {
    assert.equal(agent.interface.kind, 'grpc')
    assert.equal(agent.interface.url, `http://${sdk.address}`)
    const before = sdk.calls.length
    const task = await agent.send({ steps: 0 })
    assert.ok(task.id)
    const call = sdk.calls[before]!
    assert.equal(call.tenant, sdk.tenant)
    assert.equal(call.metadata['a2a-version'], '1.0')
    // The card is on the agent's host (another port): the credentials go to it.
    assert.equal(call.metadata.authorization, 'Bearer sdk-token')
    assert.equal(call.metadata['a2a-extensions'], 'https://example.com/ext/trace/v1')
  })

  it('sends and follows the task to its output, every artifact once', async () => {
    const task = await agent.send({ steps: 3, step_ms: 20 })
    const kinds = shapes(await collect(task.events()))
    assert.deepEqual(
      kinds.filter((k) => k.startsWith('artifact:step')),
      ['artifact:step-1', 'artifact:step-2', 'artifact:step-3'],
    )
    assert.equal(kinds.at(-1), 'status:COMPLETED')
    const artifactKinds = kinds.filter((k) => k.startsWith('artifact:'))
    assert.equal(new Set(artifactKinds).size, artifactKinds.length)
    assert.deepEqual(task.task.output, { steps: 3 })
  })

  it('get: the same task as the send and the stream showed, with its artifacts', async () => {
    const task = await agent.send({ steps: 2, step_ms: 5 })
    await task.wait({ timeoutMs: 5000 })
    const again = await agent.task(task.id)
    assert.equal(again.task.state, 'COMPLETED')
    assert.deepEqual(again.task.output, { steps: 2 })
    const texts = (await again.artifacts()).flatMap((a) => (a.type === 'text' ? [a.text] : []))
    assert.deepEqual(texts, ['step 1 of 2', 'step 2 of 2'])
  })

  it('multi-turn: INPUT_REQUIRED, a follow-up message in the same task, COMPLETED', async () => {
    const task = await agent.send({ ask: true })
    const asked = await task.wait({ timeoutMs: 5000 })
    assert.equal(asked.state, 'INPUT_REQUIRED')
    assert.equal(asked.prompt, 'What is your name?')
    await task.provideInput({ name: 'Ada' })
    const done = await task.wait({ timeoutMs: 5000 })
    assert.equal(done.state, 'COMPLETED')
    assert.equal(done.id, task.id)
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
    const listed = []
    for await (const task of agent.list({ pageSize: 2 })) listed.push(task)
    assert.ok(listed.some((t) => t.id === failed.id && t.state === 'FAILED'))
  })

  it('errors: an unknown task is TASK_NOT_FOUND, cancelling a finished one TASK_NOT_CANCELABLE', async () => {
    await assert.rejects(agent.task('no-such-task'), (error: ClientError) => {
      assert.equal(error.code, 'TASK_NOT_FOUND')
      assert.equal(error.details?.grpcStatus, 'NOT_FOUND')
      assert.equal(error.unreachable, false)
      return true
    })
    const done = await agent.send({ steps: 0 })
    await done.wait({ timeoutMs: 5000 })
    await assert.rejects(done.cancel(), (error: ClientError) => {
      assert.equal(error.code, 'TASK_NOT_CANCELABLE')
      assert.equal(error.details?.reason, 'TASK_NOT_CANCELABLE')
      return true
    })
  })

  it('a call past its timeout is TIMEOUT; an aborted one ABORTED', async () => {
    // A service that takes every call and never answers: the deadline, not the server, ends it.
    const silent = new Server()
    const held: ServerUnaryCall<unknown, unknown>[] = []
    silent.addService(
      a2aGrpcService,
      Object.fromEntries(
        Object.keys(a2aGrpcService).map((name) => [
          name,
          (call: ServerUnaryCall<unknown, unknown>) => void held.push(call),
        ]),
      ),
    )
    const port = await new Promise<number>((resolve, reject) =>
      silent.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    )
    const stub = await grpcOnlyCard(sdk.url, `127.0.0.1:${port}`)
    try {
      const mute = await connect(stub.url, { prefer: ['grpc'], timeoutMs: 5000, cache: false })
      await assert.rejects(mute.task('t-held', { timeoutMs: 200 }), { code: 'TIMEOUT' })
      assert.equal(held.length, 1, 'the call reached the service, which never answered')
    } finally {
      silent.forceShutdown()
      await stub.close()
    }
    const task = await agent.send({ steps: 0 })
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(task.refresh({ signal: controller.signal }), { code: 'ABORTED' })
  })
})

describe('a gRPC interface that cannot be reached', () => {
  it('is CONNECTION_FAILED and unreachable (the next interface would be tried)', async () => {
    const gone = await startSdkGrpcAgent()
    const lonely = await connect(gone.url, { prefer: ['grpc'], timeoutMs: 3000, cache: false })
    await gone.close()
    await assert.rejects(lonely.task('t-1'), (error: ClientError) => {
      assert.equal(error.code, 'CONNECTION_FAILED')
      assert.equal(error.unreachable, true)
      return true
    })
  })
})
