/**
 * messageId deduplication, on both bindings: the same message again is the same task; the same id
 * with another message is refused (InvalidParams, naming the field) and writes nothing; the key is
 * the caller's own (another principal or tenant is answered as if the id were new); a follow-up
 * repeating a turn of its task is checked the same way; `a2a.messageIdDedupe: false` turns it off;
 * a key past `idempotencyWindowMs` is forgotten. The core cases run on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createSwitchboard, type SwitchboardOptions } from '../../src/server/server.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { createTestDatabase, pgSkip } from '../helpers/postgres.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'
import {
  BINDINGS,
  type Binding,
  echoAgent,
  readSse,
  rest,
  rpc,
  startA2a,
  type TestServer,
  V,
} from './helpers.ts'

const ALICE = bearer('alice', 'acme')
const BOB = bearer('bob', 'acme')
const ALICE_ELSEWHERE = bearer('alice', 'globex')
type Caller = Record<string, string>

const start = (options: Partial<SwitchboardOptions> = {}) =>
  startA2a({ identity: { authenticators: [testAuthenticator] }, ...options })

/** The server the current describe block talks to (each block starts its own). */
let server: TestServer

const message = (parts: unknown[], extra: object = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  contextId: randomUUID(),
  ...extra,
})

interface Detail {
  '@type': string
  reason?: string
  metadata?: Record<string, string>
  fieldViolations?: { field: string }[]
}

interface Sent {
  task?: { id: string; contextId: string; status: { state: string }; history?: { messageId: string }[] }
  /** The error on either binding: JSON-RPC code or HTTP status, and the google.rpc details. */
  error?: { rpcCode?: number; http: number; status?: string; message: string; details: Detail[] }
}

/** SendMessage on one binding, as `caller`; the answer checked against the A2A schema. */
const send = async (
  binding: Binding,
  caller: Caller,
  params: object,
  at: TestServer = server,
  slug = 'echo',
): Promise<Sent> => {
  const base = at.base(slug)
  if (binding === 'JSONRPC') {
    const response = await rpc(base, 'SendMessage', params, { ...V, ...caller })
    const { error, result } = response.body
    if (error)
      return { error: { rpcCode: error.code, http: 200, message: error.message, details: error.data } }
    checkA2a('SendMessageResponse', result)
    return { task: result.task }
  }
  const response = await rest(base, '/message:send', { body: params, headers: caller })
  if (response.status !== 200) {
    const { error } = response.body
    return {
      error: { http: response.status, status: error.status, message: error.message, details: error.details },
    }
  }
  checkA2a('SendMessageResponse', response.body)
  return { task: response.body.task }
}

/** How many tasks `caller` has in the context: ListTasks is scoped by caller. */
const tasksIn = async (caller: Caller, contextId: string, at: TestServer = server): Promise<number> =>
  (await rpc(at.base('echo'), 'ListTasks', { contextId }, { ...V, ...caller })).body.result.totalSize

/** The refusal of a reused messageId, the same on both bindings but for the envelope. */
const assertReused = (binding: Binding, sent: Sent, messageId: string): void => {
  const { error } = sent
  assert.ok(error, `expected a refusal, got ${JSON.stringify(sent.task)}`)
  if (binding === 'JSONRPC') assert.equal(error.rpcCode, -32602)
  else assert.deepEqual([error.http, error.status], [400, 'INVALID_ARGUMENT'])
  assert.match(error.message, new RegExp(`messageId "${messageId}".*different message`))
  const info = error.details.find((d) => d['@type'].endsWith('google.rpc.ErrorInfo'))
  assert.equal(info?.reason, 'INVALID_PARAMS')
  assert.equal(info?.metadata?.code, 'IDEMPOTENCY_CONFLICT')
  assert.equal(info?.metadata?.messageId, messageId)
  const badRequest = error.details.find((d) => d['@type'].endsWith('google.rpc.BadRequest'))
  assert.deepEqual(
    badRequest?.fieldViolations?.map((v) => v.field),
    ['/message/messageId'],
  )
}

/** The same cases on SQLite and, when configured, PostgreSQL (the dedupe is the store's). */
const BACKENDS: {
  name: string
  skip: string | false
  start(): Promise<TestServer & { drop?(): Promise<void> }>
}[] = [
  { name: 'SQLite', skip: false, start: () => start() },
  {
    name: 'PostgreSQL',
    skip: pgSkip,
    async start() {
      const db = await createTestDatabase('message_ids')
      const started = await start({ store: db.url })
      return { ...started, drop: () => db.drop() }
    },
  },
]

for (const backend of BACKENDS)
  describe(`messageId deduplication on ${backend.name}`, { skip: backend.skip }, () => {
    let current: Awaited<ReturnType<typeof backend.start>>
    before(async () => {
      current = await backend.start()
      server = current
    })
    after(async () => {
      await current.close()
      await current.drop?.()
    })

    for (const binding of BINDINGS) {
      describe(`over ${binding}`, () => {
        it('the same message again is the same task, whatever the request around it asks', async () => {
          const sent = message([{ data: { n: 1 } }, { text: 'one' }])
          const first = await send(binding, ALICE, { message: sent })
          assert.equal(first.task?.status.state, 'TASK_STATE_COMPLETED')
          // Key order is not the message; nor is how the answer is wanted (configuration).
          const reordered = {
            parts: sent.parts,
            contextId: sent.contextId,
            role: sent.role,
            messageId: sent.messageId,
          }
          const again = await send(binding, ALICE, {
            message: reordered,
            configuration: { returnImmediately: true, historyLength: 0 },
          })
          assert.equal(again.task?.id, first.task?.id)
          assert.equal(again.task?.status.state, 'TASK_STATE_COMPLETED', 'the task as it is now')
          assert.equal(await tasksIn(ALICE, sent.contextId), 1)
        })

        it('the same messageId with another message is refused, and writes nothing', async () => {
          const sent = message([{ data: { n: 1 } }])
          const first = await send(binding, ALICE, { message: sent })
          const others = [
            { ...sent, parts: [{ data: { n: 2 } }] },
            { ...sent, contextId: randomUUID() },
            { ...sent, metadata: { note: 'x' } },
          ]
          for (const other of others)
            assertReused(binding, await send(binding, ALICE, { message: other }), sent.messageId)
          assert.equal(await tasksIn(ALICE, sent.contextId), 1)
          assert.equal(await tasksIn(ALICE, others[1]!.contextId), 0)
          const read = (await rpc(server.base('echo'), 'GetTask', { id: first.task!.id }, { ...V, ...ALICE }))
            .body
          assert.deepEqual(
            read.result.history.map((turn: { messageId: string; parts: unknown }) => [
              turn.messageId,
              turn.parts,
            ]),
            [[sent.messageId, sent.parts]],
            'the task holds the first message only',
          )
        })

        it("another principal's or tenant's messageId is answered as if new, never with the owner's task", async () => {
          const same = message([{ data: { n: 1 } }])
          const reused = message([{ data: { n: 2 } }])
          const owned = await send(binding, ALICE, { message: same })
          await send(binding, ALICE, { message: reused })
          for (const caller of [BOB, ALICE_ELSEWHERE]) {
            // Alice's message exactly: a task of this caller's own, holding only its own turn.
            const copy = await send(binding, caller, { message: same })
            assert.ok(copy.task && copy.task.id !== owned.task?.id)
            assert.deepEqual(
              copy.task.history?.map((turn) => turn.messageId),
              [same.messageId],
            )
            // Alice's messageId with another message: new for this caller, so no conflict either.
            const other = await send(binding, caller, { message: { ...reused, parts: [{ data: { n: 3 } }] } })
            assert.ok(other.task && other.task.id !== copy.task.id)
            assert.equal(await tasksIn(caller, same.contextId), 1)
            assert.equal(await tasksIn(caller, reused.contextId), 1)
          }
          // Alice's keys are untouched: her message is still her task.
          assert.equal((await send(binding, ALICE, { message: same })).task?.id, owned.task?.id)
          assert.equal(await tasksIn(ALICE, same.contextId), 1)
        })

        it('a follow-up repeating a turn of its task gets the task; the id with another message is refused', async () => {
          const asked = await send(
            binding,
            ALICE,
            { message: message([{ text: 'bees' }]) },
            server,
            'report-builder',
          )
          assert.equal(asked.task?.status.state, 'TASK_STATE_INPUT_REQUIRED')
          const answer = message([{ data: { sections: ['Hives'] } }], {
            taskId: asked.task!.id,
            contextId: asked.task!.contextId,
          })
          const refusedAnswer = { ...answer, parts: [{ data: { sections: ['Wax'] } }] }
          const done = await send(binding, ALICE, { message: answer }, server, 'report-builder')
          assert.equal(done.task?.status.state, 'TASK_STATE_COMPLETED')
          const repeat = await send(binding, ALICE, { message: answer }, server, 'report-builder')
          assert.equal(repeat.task?.id, asked.task!.id)
          assertReused(
            binding,
            await send(binding, ALICE, { message: refusedAnswer }, server, 'report-builder'),
            answer.messageId,
          )
        })
      })
    }
  })

describe('messageId deduplication: streams, the switch and the window', () => {
  before(async () => {
    server = await start()
  })
  after(() => server.close())

  it('SendStreamingMessage deduplicates like SendMessage, and refuses a reused id before any event', async () => {
    const sent = message([{ data: { n: 1 } }])
    const first = await send('JSONRPC', ALICE, { message: sent })
    const stream = await readSse(`${server.base('echo')}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { ...V, ...ALICE },
      body: { message: sent },
    })
    assert.equal(JSON.parse(stream.events[0]!.data).task.id, first.task?.id)
    const refused = await readSse(`${server.base('echo')}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { ...V, ...ALICE },
      body: { message: { ...sent, parts: [{ text: 'other' }] } },
    })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.error.details[0].metadata.code, 'IDEMPOTENCY_CONFLICT')
  })

  it('a2a.messageIdDedupe: false makes every message new, for peers that reuse ids', async () => {
    const lax = await start({ a2a: { messageIdDedupe: false } })
    try {
      const sent = message([{ data: { n: 1 } }])
      for (const binding of BINDINGS) {
        const first = await send(binding, ALICE, { message: sent }, lax)
        const second = await send(binding, ALICE, { message: { ...sent, parts: [{ data: { n: 2 } }] } }, lax)
        assert.ok(first.task && second.task && first.task.id !== second.task.id)
      }
      assert.equal(await tasksIn(ALICE, sent.contextId, lax), 4)
    } finally {
      await lax.close()
    }
  })

  it('idempotencyWindowMs must be a whole number of milliseconds above 0', async () => {
    for (const idempotencyWindowMs of [0, -1, 1.5, Number.POSITIVE_INFINITY])
      await assert.rejects(
        // Refused before the store opens: the data directory is never made.
        createSwitchboard({
          agents: [echoAgent],
          dataDir: '/nonexistent',
          logger: false,
          idempotencyWindowMs,
        }),
        /idempotencyWindowMs must be a whole number/,
      )
  })

  it('a messageId older than idempotencyWindowMs is forgotten: the message is new again', async () => {
    const brief = await start({ idempotencyWindowMs: 1 })
    try {
      for (const binding of BINDINGS) {
        const sent = message([{ data: { n: 1 } }])
        const first = await send(binding, ALICE, { message: sent }, brief)
        // The key is at least a millisecond old once the clock has moved on from its answer.
        const answeredAt = Date.now()
        while (Date.now() <= answeredAt + 1) await new Promise((resolve) => setImmediate(resolve))
        const again = await send(binding, ALICE, { message: { ...sent, parts: [{ data: { n: 2 } }] } }, brief)
        assert.ok(again.task && again.task.id !== first.task?.id)
      }
    } finally {
      await brief.close()
    }
  })
})
