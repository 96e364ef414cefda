/**
 * `store.commit` spans: one per SQLite group commit and per PostgreSQL write transaction, with the
 * backend, the batch size and the operations; a batch of one writer is its child, a batch mixing
 * writers a root span linking to theirs. A store built without a tracer makes none.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { MAX_COMMIT_LINKS } from '../../src/store/commit-span.ts'
import type { Store } from '../../src/store/contract.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { create, range, status } from '../store/contract/fixtures.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
// The global context manager: a writer's span is the active one when it asks the store to write.
provider.register()
const tracer = provider.getTracer('test')
after(() => provider.shutdown())
beforeEach(() => exporter.reset())

const commits = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === 'store.commit')

/** Runs `work` as the child of a span of its own, ended when `work` settles. */
const inRequestSpan = async <T>(
  name: string,
  work: () => Promise<T>,
): Promise<{ result: T; span: ReadableSpan }> => {
  const span = tracer.startSpan(name)
  try {
    const result = await context.with(trace.setSpan(context.active(), span), work)
    return { result, span: span as unknown as ReadableSpan }
  } finally {
    span.end()
  }
}

describe('SQLite group commit spans', () => {
  let store: Store
  beforeEach(() => {
    store = new SqliteStore({ filename: ':memory:', tracer })
  })
  afterEach(() => store.close())

  it('a batch asked for by one span: one store.commit, its child, with backend, size and operation', async () => {
    const { result, span } = await inRequestSpan('request', () => create(store))
    assert.equal(result.created, true)
    const [commit, ...more] = commits()
    assert.ok(commit)
    assert.equal(more.length, 0)
    assert.equal(commit.parentSpanContext?.spanId, span.spanContext().spanId)
    assert.equal(commit.spanContext().traceId, span.spanContext().traceId)
    assert.deepEqual(commit.attributes, {
      'db.system': 'sqlite',
      'switchboard.store.batch.size': 1,
      'switchboard.store.operation': 'createTask',
    })
  })

  it('writes of several requests in one turn: one root span, the batch size, a link to each writer', async () => {
    const writers = await Promise.all(range(3).map((i) => inRequestSpan(`request ${i}`, () => create(store))))
    const created = writers.map((w) => w.result.task.id)
    const appended = await Promise.all(
      created.map((taskId) =>
        inRequestSpan('append', () => store.append({ taskId, events: [status('WORKING')] })).then(
          (a) => a.span,
        ),
      ),
    )
    const [first, second] = commits()
    assert.ok(first && second, 'one commit for the creates, one for the appends')
    assert.equal(commits().length, 2)
    assert.equal(first.attributes['switchboard.store.batch.size'], 3)
    assert.equal(first.attributes['switchboard.store.operation'], 'createTask')
    assert.equal(first.parentSpanContext, undefined, 'a batch of several writers is a root span')
    assert.deepEqual(
      new Set(first.links.map((l) => l.context.spanId)),
      new Set(writers.map((w) => w.span.spanContext().spanId)),
    )
    assert.equal(second.attributes['switchboard.store.batch.size'], 3)
    assert.equal(second.attributes['switchboard.store.operation'], 'append')
    assert.deepEqual(
      new Set(second.links.map((l) => l.context.spanId)),
      new Set(appended.map((s) => s.spanContext().spanId)),
    )
  })

  it('a batch of many writers links to the first MAX_COMMIT_LINKS; the operations are named once each', async () => {
    const task = (await create(store)).task
    exporter.reset()
    await Promise.all([
      ...range(MAX_COMMIT_LINKS + 4).map((i) => inRequestSpan(`request ${i}`, () => create(store))),
      inRequestSpan('renew', () => store.renewLeases('me', [task.id], 1_000)),
    ])
    const [commit] = commits()
    assert.ok(commit)
    assert.equal(commit.attributes['switchboard.store.batch.size'], MAX_COMMIT_LINKS + 5)
    assert.equal(commit.attributes['switchboard.store.operation'], 'createTask,renewLeases')
    assert.equal(commit.links.length, MAX_COMMIT_LINKS)
  })

  it('a write outside any span is still traced, as a root span without links', async () => {
    await create(store)
    const [commit] = commits()
    assert.ok(commit)
    assert.equal(commit.parentSpanContext, undefined)
    assert.equal(commit.links.length, 0)
  })

  it('without a tracer (tracing off) no store.commit span is made', async () => {
    const untraced = new SqliteStore({ filename: ':memory:' })
    await inRequestSpan('request', () => create(untraced))
    assert.equal(commits().length, 0)
    await untraced.close()
  })
})

describe('PostgreSQL write transaction spans', { skip: pgSkip }, () => {
  let db: TestDatabase
  let store: PostgresStore
  let untraced: PostgresStore
  before(async () => {
    db = await createTestDatabase('commitspan')
    store = new PostgresStore({ connectionString: db.url, schema: db.schema(), tracer })
    await store.init()
    untraced = new PostgresStore({ connectionString: db.url, schema: db.schema() })
    await untraced.init()
  })
  after(async () => {
    await store?.close()
    await untraced?.close()
    await db?.drop()
  })

  it('each task write transaction: a store.commit child of its writer, batch size 1', async () => {
    const { result, span } = await inRequestSpan('request', () => create(store))
    await inRequestSpan('append', () => store.append({ taskId: result.task.id, events: [status('WORKING')] }))
    const [created, appended] = commits()
    assert.ok(created && appended)
    assert.equal(commits().length, 2)
    assert.equal(created.parentSpanContext?.spanId, span.spanContext().spanId)
    assert.deepEqual(created.attributes, {
      'db.system': 'postgresql',
      'switchboard.store.batch.size': 1,
      'switchboard.store.operation': 'createTask',
    })
    assert.equal(appended.attributes['switchboard.store.operation'], 'append')
  })

  it('a refused write ends its span failed with the error code', async () => {
    await assert.rejects(store.append({ taskId: 'no-such-task', events: [status('WORKING')] }))
    const [commit] = commits()
    assert.ok(commit)
    assert.equal(commit.attributes['switchboard.error.code'], 'TASK_NOT_FOUND')
  })

  it('without a tracer no store.commit span is made', async () => {
    await inRequestSpan('request', () => create(untraced))
    assert.equal(commits().length, 0)
  })
})
