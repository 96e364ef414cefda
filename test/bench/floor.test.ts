import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { A2aClient, type StreamItem } from '../../bench/client/a2a.ts'
import { Http } from '../../bench/client/http.ts'
import { checkAccepted, checkCompletedTask, checkStream, isTerminalState } from '../../bench/client/verify.ts'
import { makePlan, targetsFor } from '../../bench/harness/plan.ts'
import { startFloor } from '../../bench/servers/floor.ts'
import type { Store } from '../../src/store/contract.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'

/**
 * The send-async scenario's operation: SendMessage with returnImmediately, answered WORKING, then
 * GetTask until the task is terminal; the task read back must pass the scenario's checks.
 */
const sendAsync = async (a2a: A2aClient): Promise<string> => {
  const accepted = await a2a.send({ artifacts: 1 }, { returnImmediately: true })
  checkAccepted(accepted)
  assert.equal(accepted.status?.state, 'TASK_STATE_WORKING')
  let task = await a2a.get(accepted.id)
  for (let polls = 1; !isTerminalState(task.status?.state) && polls < 100; polls++)
    task = await a2a.get(accepted.id)
  checkCompletedTask(task, { artifacts: 1, outputArtifact: false }, accepted.id)
  return accepted.id
}

/**
 * The floors are what the goals are read against: their answers must pass the same checks as the
 * contenders' (a wrong answer would count as an error, not as a floor), and the durable one must
 * have stored each task before answering.
 */
describe('the benchmark floors', () => {
  let dir: string
  let floor: Awaited<ReturnType<typeof startFloor>>
  let http: Http
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-floor-'))
    floor = await startFloor({ target: 'durable-floor', dataDir: dir })
    http = new Http(floor.base, 4)
  })
  after(async () => {
    await http.close()
    await floor.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const storedIds = (): string[] => {
    const db = new Database(join(dir, 'floor.db'), { readonly: true })
    try {
      return (db.prepare('SELECT id FROM tasks').all() as { id: string }[]).map((r) => r.id)
    } finally {
      db.close()
    }
  }

  for (const binding of ['jsonrpc', 'rest'] as const) {
    it(`answers send and stream over ${binding} as the checks expect, each task stored first`, async () => {
      const a2a = new A2aClient(http, binding)
      const task = await a2a.send({ artifacts: 1 })
      checkCompletedTask(task, { artifacts: 1, outputArtifact: false })
      assert.ok(storedIds().includes(task.id))
      const items: StreamItem[] = []
      await a2a.stream({ artifacts: 10 }, (item) => items.push(item))
      checkStream(items, { artifacts: 10, outputArtifact: false })
      assert.ok(storedIds().includes(items[0]!.task!.id))
    })

    it(`answers send-async over ${binding}: WORKING at once, then GetTask reads the stored task`, async () => {
      const id = await sendAsync(new A2aClient(http, binding))
      assert.ok(storedIds().includes(id))
    })
  }

  it('answers send-async without a store (the node:http floor), from memory', async () => {
    const bare = await startFloor({ target: 'http-floor', dataDir: dir })
    const client = new Http(bare.base, 2)
    try {
      for (const binding of ['jsonrpc', 'rest'] as const) await sendAsync(new A2aClient(client, binding))
      await assert.rejects(new A2aClient(client, 'rest').get('no-such-task'), /GetTask failed \(404\)/)
    } finally {
      await client.close()
      await bare.close()
    }
  })

  it('holds a task until it is cancelled (the subscriber scenario)', async () => {
    const a2a = new A2aClient(http, 'jsonrpc')
    const held = await a2a.send({ hold: true })
    assert.equal(held.status?.state, 'TASK_STATE_WORKING')
    const items: StreamItem[] = []
    const subscribed = a2a.subscribe(held.id, (item) => items.push(item))
    // The cancel may reach the floor before the subscription: then the stream is refused (404).
    while (items.length === 0) await new Promise((resolve) => setImmediate(resolve))
    assert.equal((await a2a.cancel(held.id)).status?.state, 'TASK_STATE_CANCELED')
    await subscribed
    assert.equal(items.at(-1)?.statusUpdate?.status?.state, 'TASK_STATE_CANCELED')
  })

  it('run beside the contenders in send, send-async and stream over HTTP, and hold streams as the node:http floor', () => {
    const plan = makePlan({ quick: false })
    const floorsOf = (scenario: string, binding: string) =>
      targetsFor(plan, { scenario: scenario as never, binding: binding as never }).filter((t) =>
        t.endsWith('floor'),
      )
    for (const scenario of ['send', 'send-async', 'stream'])
      for (const binding of ['jsonrpc', 'rest'])
        assert.deepEqual(floorsOf(scenario, binding), [
          'http-floor',
          'durable-floor',
          'store-floor',
          'fastify-store-floor',
          'pg-lifecycle-floor',
          'pg-store-floor',
        ])
    assert.deepEqual(floorsOf('send', 'grpc'), [])
    assert.deepEqual(floorsOf('send-async', 'grpc'), [])
    assert.deepEqual(floorsOf('get', 'jsonrpc'), [])
    assert.deepEqual(floorsOf('tokens', 'rest'), [])
    assert.deepEqual(floorsOf('subscribers', 'jsonrpc'), ['http-floor'])
    assert.deepEqual(
      targetsFor(makePlan({ quick: true }), { scenario: 'send', binding: 'jsonrpc' }).filter((t) =>
        t.endsWith('floor'),
      ),
      [],
    )
  })
})

/**
 * A bench task as a store floor must have written it: COMPLETED with its artifacts, and its log the
 * opening pair (the input, SUBMITTED), then the run's append: WORKING, each artifact, COMPLETED.
 */
const assertWritten = async (store: Store, id: string, artifacts: number): Promise<void> => {
  const task = await store.getTask({ tenant: 'default', owner: 'anonymous' }, id)
  assert.equal(task?.state, 'COMPLETED')
  assert.equal(task?.artifacts.length, artifacts)
  const kinds = (await store.readEvents(id, 0)).map((e) => (e.kind === 'status' ? e.state : e.kind))
  assert.deepEqual(kinds, [
    'input',
    'SUBMITTED',
    'WORKING',
    ...Array(artifacts).fill('artifact'),
    'COMPLETED',
  ])
}

for (const target of ['store-floor', 'fastify-store-floor'] as const)
  describe(`the ${target}: each task written as Switchboard SQLite's store writes it`, () => {
    let dir: string
    let floor: Awaited<ReturnType<typeof startFloor>>
    let http: Http
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'switchboard-store-floor-'))
      floor = await startFloor({ target, dataDir: dir })
      http = new Http(floor.base, 4)
    })
    after(async () => {
      await http.close()
      await floor.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('commits the task, its events and its message key before answering send and stream', async () => {
      const a2a = new A2aClient(http, 'rest')
      const sent = await a2a.send({ artifacts: 1 })
      checkCompletedTask(sent, { artifacts: 1, outputArtifact: false })
      const items: StreamItem[] = []
      await a2a.stream({ artifacts: 10 }, (item) => items.push(item))
      checkStream(items, { artifacts: 10, outputArtifact: false })
      // Read back while the floor runs: a second connection to the file, as the CLI's inspection would.
      const store = new SqliteStore({ filename: join(dir, 'switchboard.sqlite') })
      try {
        for (const [id, artifacts] of [
          [sent.id, 1],
          [items[0]!.task!.id, 10],
        ] as const)
          await assertWritten(store, id, artifacts)
      } finally {
        await store.close()
      }
      const db = new Database(join(dir, 'switchboard.sqlite'), { readonly: true })
      try {
        const keys = db.prepare('SELECT task_id FROM idempotency_keys ORDER BY task_id').all() as {
          task_id: string
        }[]
        assert.deepEqual(
          keys.map((k) => k.task_id),
          [sent.id, items[0]!.task!.id].sort(),
        )
      } finally {
        db.close()
      }
    })

    it(`is served by ${target === 'store-floor' ? 'node:http' : 'fastify'}`, async () => {
      // A method no fastify route takes: fastify's own not-found answer; node:http's floor takes
      // any method but GET as SendMessage.
      const response = await fetch(`${floor.base}/a2a/rest/tasks`, { method: 'PUT' })
      const body = await response.text()
      if (target === 'store-floor') assert.equal(response.status, 200)
      else {
        assert.equal(response.status, 404)
        assert.match(body, /Route PUT:\/a2a\/rest\/tasks not found/)
      }
    })

    it('answers send-async once the task is created, and GetTask reads it back through the store', async () => {
      for (const binding of ['jsonrpc', 'rest'] as const) {
        const id = await sendAsync(new A2aClient(http, binding))
        const store = new SqliteStore({ filename: join(dir, 'switchboard.sqlite') })
        try {
          await assertWritten(store, id, 1)
        } finally {
          await store.close()
        }
      }
    })
  })

/** A PostgreSQL floor on a database of its own for one describe block, and an HTTP client to it. */
const pgFloor = (name: string, target: 'pg-lifecycle-floor' | 'pg-store-floor') => {
  const running = {} as { database: TestDatabase; floor: Awaited<ReturnType<typeof startFloor>>; http: Http }
  before(async () => {
    running.database = await createTestDatabase(name)
    running.floor = await startFloor({ target, dataDir: tmpdir(), pgUrl: running.database.url })
    running.http = new Http(running.floor.base, 4)
  })
  after(async () => {
    await running.http?.close()
    await running.floor?.close()
    await running.database?.drop()
  })
  return running
}

describe('the PostgreSQL anchor lifecycle floor', { skip: pgSkip }, () => {
  const running = pgFloor('floor', 'pg-lifecycle-floor')

  it('commits each task’s lifecycle before answering: four inserts and one update', async () => {
    const a2a = new A2aClient(running.http, 'jsonrpc')
    // Sent together, so that several land in one batch (one transaction, one round trip).
    const tasks = await Promise.all(Array.from({ length: 8 }, () => a2a.send({ artifacts: 1 })))
    for (const task of tasks) checkCompletedTask(task, { artifacts: 1, outputArtifact: false })
    const client = new pg.Client({ connectionString: running.database.url })
    await client.connect()
    try {
      const ids = tasks.map((t) => t.id)
      const rows = await client.query<{ id: string; state: string; artifacts: number; events: number }>(
        `SELECT t.id, t.state, jsonb_array_length(t.body->'artifacts') AS artifacts,
                (SELECT count(*)::int FROM events e WHERE e.task_id = t.id) AS events
           FROM tasks t WHERE t.id = ANY($1)`,
        [ids],
      )
      assert.equal(rows.rows.length, ids.length)
      for (const row of rows.rows)
        assert.deepEqual([row.state, row.artifacts, row.events], ['COMPLETED', 1, 3])
    } finally {
      await client.end()
    }
  })

  it('answers send-async, GetTask reading the task row back', async () => {
    for (const binding of ['jsonrpc', 'rest'] as const) await sendAsync(new A2aClient(running.http, binding))
  })
})

describe("the PostgreSQL store floor: each task written as Switchboard PostgreSQL's store writes it", {
  skip: pgSkip,
}, () => {
  const running = pgFloor('pgstorefloor', 'pg-store-floor')

  it('commits the task, its events and its message key before answering, with its bus listening', async () => {
    const a2a = new A2aClient(running.http, 'jsonrpc')
    // Sent together, so that several land in one group commit.
    const sent = await Promise.all(Array.from({ length: 6 }, () => a2a.send({ artifacts: 1 })))
    for (const task of sent) checkCompletedTask(task, { artifacts: 1, outputArtifact: false })
    const items: StreamItem[] = []
    await a2a.stream({ artifacts: 10 }, (item) => items.push(item))
    checkStream(items, { artifacts: 10, outputArtifact: false })
    const store = new PostgresStore({ connectionString: running.database.url })
    const client = new pg.Client({ connectionString: running.database.url })
    await client.connect()
    try {
      const written: [string, number][] = [
        ...sent.map((t) => [t.id, 1] as [string, number]),
        [items[0]!.task!.id, 10],
      ]
      for (const [id, artifacts] of written) await assertWritten(store, id, artifacts)
      const keys = await client.query<{ task_id: string }>(
        'SELECT task_id FROM switchboard.idempotency_keys ORDER BY task_id',
      )
      assert.deepEqual(
        keys.rows.map((k) => k.task_id),
        written.map(([id]) => id).sort(),
      )
      // The bus's LISTEN connection is open, as a server's is: the NOTIFYs of each commit reach a listener.
      const listening = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
      )
      assert.ok(listening.rows[0]!.n >= 1)
    } finally {
      await client.end()
      await store.close()
    }
  })

  it('answers send-async once the task is created, and GetTask reads it back through the store', async () => {
    const store = new PostgresStore({ connectionString: running.database.url })
    try {
      for (const binding of ['jsonrpc', 'rest'] as const)
        await assertWritten(store, await sendAsync(new A2aClient(running.http, binding)), 1)
    } finally {
      await store.close()
    }
  })
})
