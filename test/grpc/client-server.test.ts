/**
 * Our client against our own server over gRPC (connect with prefer ['grpc']): the card's GRPC
 * interface and its tenant route to the agent, a task reads the same as over JSON-RPC, a stream
 * cut twice is resumed with `last-event-id` with nothing lost or repeated, and errors carry the
 * same codes as over HTTP.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ClientError, connect, credentials, type TaskUpdate } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { collect, freePort, idsOf, shapes, type TcpProxy, tcpProxy } from '../client/helpers.ts'
import { CITATIONS, guarded, SIGNED } from '../fixtures/extension-agents.ts'
import { testAgents } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { TestAuthenticator } from '../helpers/test-authenticator.ts'
import { type CardStub, grpcOnlyCard } from './grpc-only-card.ts'

let server: TestServer
const at = (slug: string) => `${server.url}/agents/${slug}`
const options = {
  prefer: ['grpc' as const],
  reconnect: { baseMs: 20, maxMs: 200, maxAttempts: 20 },
  timeoutMs: 5000,
  cache: false as const,
}
before(async () => {
  server = await startServer({ agents: [...demoAgents, ...testAgents, guarded] })
})
after(async () => {
  await server.close()
})

const logsIn = (updates: TaskUpdate[]) => updates.filter((u) => u.type === 'log').length

describe('our server over gRPC', () => {
  it("the card's GRPC interface carries the agent's tenant; a task reads the same as over JSON-RPC", async () => {
    const agent = await connect(at('long-runner'), options)
    assert.equal(agent.interface.kind, 'grpc')
    assert.equal(agent.interface.url, `http://${server.switchboard.grpcAddress()}`)
    const task = await agent.send({ steps: 2, step_ms: 5 })
    const done = await task.wait({ timeoutMs: 5000 })
    assert.equal(done.state, 'COMPLETED')
    assert.equal(done.output?.steps, 2)
    const overJsonRpc = await connect(at('long-runner'), { ...options, prefer: ['jsonrpc'] })
    const same = await overJsonRpc.task(task.id)
    assert.deepEqual((await agent.task(task.id)).task, same.task)
  })

  it('multi-turn and cancel: an answer continues the task, a cancelled one ends CANCELLED', async () => {
    const builder = await connect(at('report-builder'), options)
    const task = await builder.send({ text: 'Q4' })
    const asked = await task.wait({ timeoutMs: 5000 })
    assert.equal(asked.state, 'INPUT_REQUIRED')
    await task.provideInput({ sections: ['Intro'] })
    assert.equal((await task.wait({ timeoutMs: 10_000 })).state, 'COMPLETED')

    const runner = await connect(at('long-runner'), options)
    const long = await runner.send({ steps: 500, step_ms: 20 })
    const cancelled = await long.cancel()
    assert.equal(cancelled.state, 'CANCELLED')
    assert.equal(shapes(await collect(long.events())).at(-1), 'status:CANCELLED')
  })

  it('errors: the same codes as over JSON-RPC, with the gRPC status alongside', async () => {
    const grpc = await connect(at('long-runner'), options)
    const jsonrpc = await connect(at('long-runner'), { ...options, prefer: ['jsonrpc'] })
    const done = await grpc.send({ steps: 1, step_ms: 1 })
    await done.wait({ timeoutMs: 5000 })
    const failureOf = async (attempt: Promise<unknown>): Promise<ClientError> =>
      attempt.then(
        () => assert.fail('expected a failure'),
        (error: ClientError) => error,
      )
    const cases = [
      {
        what: 'an unknown task',
        run: (agent: typeof grpc) => agent.task('6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f'),
        grpcStatus: 'NOT_FOUND',
        code: 'TASK_NOT_FOUND',
      },
      {
        what: "an input that breaks the agent's schema",
        run: (agent: typeof grpc) => agent.send({ steps: 'many' }),
        grpcStatus: 'INVALID_ARGUMENT',
        violations: true,
      },
      {
        what: 'cancelling a finished task',
        run: async (agent: typeof grpc) => (await agent.task(done.id)).cancel(),
        grpcStatus: 'FAILED_PRECONDITION',
        code: 'TASK_NOT_CANCELABLE',
      },
    ]
    for (const { what, run, grpcStatus, code, violations } of cases) {
      const overGrpc = await failureOf(run(grpc))
      const overJsonRpc = await failureOf(run(jsonrpc))
      assert.equal(overGrpc.code, overJsonRpc.code, what)
      if (code) assert.equal(overGrpc.code, code, what)
      assert.equal(overGrpc.details?.grpcStatus, grpcStatus, what)
      assert.equal(overGrpc.unreachable, false, what)
      assert.deepEqual(overGrpc.details?.violations, overJsonRpc.details?.violations, what)
      if (violations)
        assert.ok(Array.isArray(overGrpc.details?.violations), `${what}: BadRequest field violations`)
    }
  })

  it('extensions travel as a2a-extensions metadata; the echo in the initial metadata is read', async () => {
    const agent = await connect(at('guarded'), {
      ...options,
      extensions: [CITATIONS, SIGNED, 'https://example.org/unknown'],
    })
    const task = await agent.send({ ask: true })
    assert.deepEqual(task.extensions, [SIGNED, CITATIONS], 'declared ones, in card order')
    await collect(task.events({ until: 'settled' }))
    const answered = await task.provideInput({})
    assert.deepEqual(answered.extensions, [SIGNED, CITATIONS])
    assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
    assert.deepEqual(task.task.output, { extensions: [SIGNED, CITATIONS] })
  })

  it('following is aborted by its signal: the stream ends with ABORTED, the task runs on', async () => {
    const agent = await connect(at('long-runner'), options)
    const task = await agent.send({ steps: 200, step_ms: 20 })
    const controller = new AbortController()
    const seen: TaskUpdate[] = []
    await assert.rejects(
      (async () => {
        for await (const update of task.events({ signal: controller.signal })) {
          seen.push(update)
          if (logsIn(seen) === 2) controller.abort()
        }
      })(),
      { code: 'ABORTED' },
    )
    assert.equal(logsIn(seen), 2)
    assert.equal((await task.refresh()).state, 'WORKING')
    await task.cancel()
  })

  it('a FAILED task reads with its error, as over the other bindings', async () => {
    const failing = await connect(at('failing'), options)
    const failed = await (await failing.send({ reason: 'grpc' })).wait({ timeoutMs: 5000 })
    assert.equal(failed.state, 'FAILED')
    assert.equal(failed.error?.code, 'BROKEN_PIPE')
  })
})

describe('a stream cut mid-way', () => {
  let proxy: TcpProxy
  let card: CardStub
  before(async () => {
    proxy = await tcpProxy(Number(server.switchboard.grpcAddress()!.split(':').at(-1)))
    // The agent's card, with its GRPC interface moved to the proxy: every gRPC call goes through it.
    card = await grpcOnlyCard(at('long-runner'), `127.0.0.1:${proxy.port}`)
  })
  after(async () => {
    await proxy.close()
    await card.close()
  })

  it('is resumed from the last event id: nothing lost, nothing twice (compared with a JSON-RPC replay)', async () => {
    const agent = await connect(card.url, options)
    assert.equal(agent.interface.url, `http://127.0.0.1:${proxy.port}`)
    const task = await agent.send({ steps: 12, step_ms: 30 })
    const got: TaskUpdate[] = []
    let cuts = 0
    const before = proxy.connections()
    for await (const update of task.events()) {
      got.push(update)
      if (update.type === 'log' && (logsIn(got) === 3 || logsIn(got) === 7)) {
        proxy.cut()
        cuts += 1
      }
    }
    assert.equal(cuts, 2)
    assert.ok(proxy.connections() - before >= 2, 'reconnected after each cut')
    assert.equal(logsIn(got), 12)
    const ids = idsOf(got)
    assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(',')}`)
    const overJsonRpc = await connect(at('long-runner'), { ...options, prefer: ['jsonrpc'] })
    const replay = await collect((await overJsonRpc.task(task.id)).events())
    assert.deepEqual(ids, idsOf(replay), 'no event lost')
    assert.deepEqual(shapes(got), shapes(replay))
  })
})

describe('a gRPC interface nothing answers on', () => {
  it('is left for the next interface: the call is made there, which then stays current', async () => {
    const silent = await freePort()
    const card = await grpcOnlyCard(at('long-runner'), `127.0.0.1:${silent}`, ['JSONRPC'])
    try {
      const agent = await connect(card.url, { ...options, prefer: ['grpc', 'jsonrpc'] })
      // Then the card's JSON-RPC entries (1.0, then the 0.3 fallback).
      assert.deepEqual(
        agent.interfaces.slice(0, 2).map((i) => i.kind),
        ['grpc', 'jsonrpc'],
      )
      const task = await agent.send({ steps: 1, step_ms: 1 })
      assert.equal(agent.interface.kind, 'jsonrpc', 'moved on to the interface that answers')
      assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
    } finally {
      await card.close()
    }
  })
})

describe('credentials over gRPC', () => {
  let secured: TestServer
  let auth: TestAuthenticator
  before(async () => {
    auth = new TestAuthenticator()
    secured = await startServer({ agents: demoAgents, identity: { authenticators: [auth] } })
  })
  after(async () => {
    await secured.close()
  })

  it('sends the bearer token as authorization metadata; a bad one is UNAUTHENTICATED', async () => {
    const url = `${secured.url}/agents/long-runner`
    const good = await connect(url, { ...options, credentials: credentials.bearer('good') })
    const task = await good.send({ steps: 1, step_ms: 1 })
    assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'COMPLETED')
    assert.ok(auth.seen.includes('good'))
    // A credential function is asked again after UNAUTHENTICATED, and the call made once more.
    const tokens = ['stale', 'good']
    const renewing = await connect(url, {
      ...options,
      credentials: credentials.custom(() => ({ authorization: `Bearer ${tokens.shift() ?? 'none'}` })),
    })
    auth.seen.length = 0
    await renewing.send({ steps: 1, step_ms: 1 })
    assert.deepEqual(auth.seen, ['stale', 'good'])
    const bad = await connect(url, { ...options, credentials: credentials.bearer('bad') })
    await assert.rejects(bad.send({ steps: 1 }), (error: ClientError) => {
      assert.equal(error.code, 'UNAUTHENTICATED')
      assert.equal(error.details?.grpcStatus, 'UNAUTHENTICATED')
      return true
    })
  })
})
