import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import pg from 'pg'
import { TaskFollower } from '../../src/engine/follow.ts'
import type { TaskNote } from '../../src/events/contract.ts'
import { PostgresBus } from '../../src/events/postgres-bus.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { emptyTask, headerOf } from '../../src/model/fold.ts'
import { newId } from '../../src/model/ids.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { completed, create, status } from '../store/contract/fixtures.ts'
import { busContract } from './bus-contract.ts'

/** Resolves when `check` holds, polling; fails after `ms`. */
const until = async (check: () => boolean, what: string, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('PostgreSQL bus', { skip: pgSkip }, () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase('bus')
  })
  after(async () => {
    await db?.drop()
  })

  busContract('postgres', () =>
    PostgresBus.connect({
      connectionString: db.url,
      replicaTag: 'solo',
      readVersions: async () => new Map(),
    }),
  )

  /** Two replicas on one database: each a store and a bus sharing its tag. */
  describe('across replicas', () => {
    let schema: string
    let stores: { a: PostgresStore; b: PostgresStore }
    let buses: { a: PostgresBus; b: PostgresBus }
    const errors: Error[] = []
    /** When set, a reconnecting bus reads the versions only once it resolves (the test's cue). */
    let readGate: Promise<void> | undefined
    beforeEach(async () => {
      readGate = undefined
      schema = db.schema()
      stores = {
        a: new PostgresStore({ connectionString: db.url, schema, replicaTag: 'replica-a' }),
        b: new PostgresStore({ connectionString: db.url, schema, replicaTag: 'replica-b' }),
      }
      await stores.a.init()
      await stores.b.init()
      const bus = (tag: string, app: string, store: PostgresStore) =>
        PostgresBus.connect({
          connectionString: `${db.url}?application_name=${app}`,
          replicaTag: tag,
          readVersions: async (taskIds) => {
            await readGate
            return store.versionsOf(taskIds)
          },
          reconnect: { initialMs: 20, maxMs: 200 },
          onError: (error) => errors.push(error),
        })
      buses = {
        a: await bus('replica-a', 'bus-a', stores.a),
        b: await bus('replica-b', 'bus-b', stores.b),
      }
    })
    afterEach(async () => {
      await Promise.all([buses.a.close(), buses.b.close(), stores.a.close(), stores.b.close()])
      errors.length = 0
    })

    it('a store append on one replica reaches a subscriber on the other as a note without events', async () => {
      const taskId = newId()
      const onA: TaskNote[] = []
      const onB: TaskNote[] = []
      buses.a.subscribe(taskId, (note) => onA.push(note))
      buses.b.subscribe(taskId, (note) => onB.push(note))
      await create(stores.a, { header: { id: taskId } })
      const { events } = await stores.a.append({ taskId, events: [status('WORKING')] })
      buses.a.publish(taskId, events)
      await until(() => onB.length === 2, 'the notes on replica b')
      assert.deepEqual(onB, [
        { taskId, seq: 2 },
        { taskId, seq: 3 },
      ])
      // Replica a's own NOTIFYs come back to it too, and are skipped: publish delivers in-process.
      // A later commit on b reaches a after them (one connection hears notes in commit order), so
      // once it arrived, any note of a's own that was not skipped would be there too.
      await stores.b.append({ taskId, events: [{ kind: 'log', level: 'INFO', message: 'from b' }] })
      await until(() => onA.length >= 2, "replica b's note on replica a")
      assert.deepEqual(onA, [
        { taskId, seq: 3, events },
        { taskId, seq: 4 },
      ])
    })

    it('announces runnable work to the other replicas, not back to the one that made it', async () => {
      let wokenA = 0
      let wokenB = 0
      buses.a.onWork(() => {
        wokenA += 1
      })
      buses.b.onWork(() => {
        wokenB += 1
      })
      await create(stores.a)
      await until(() => wokenB === 1, 'the work note on replica b')
      await create(stores.a, { lease: { owner: 'replica-a', ttlMs: 60_000 } })
      // Work made afterwards is heard after it (notes arrive in commit order): on b from a, on a from b.
      await create(stores.a)
      await create(stores.b)
      await until(() => wokenB >= 2 && wokenA >= 1, 'the later work notes')
      assert.equal(wokenB, 2, 'a task created leased is no work for others')
      assert.equal(wokenA, 1, "a replica's own work notes are not announced back to it")
    })

    it('lets a follower on one replica stream every event written on the other, in order', async () => {
      const { task } = await create(stores.a)
      const followed: TaskEvent[] = []
      const following = (async () => {
        for await (const { event } of new TaskFollower({
          store: stores.b,
          bus: buses.b,
          task: emptyTask(headerOf(task)),
          afterSeq: 0,
        })) {
          followed.push(event)
        }
      })()
      for (let i = 0; i < 5; i += 1) {
        await stores.a.append({
          taskId: task.id,
          events: [i === 0 ? status('WORKING') : { kind: 'log', level: 'INFO', message: `${i}` }],
        })
      }
      await stores.a.append({ taskId: task.id, events: [completed] })
      await following
      assert.deepEqual(
        followed.map((e) => e.seq),
        [1, 2, 3, 4, 5, 6, 7, 8],
      )
    })

    it('reconnects after losing its connection and re-announces every followed task and work', async () => {
      const notes: TaskNote[] = []
      let woken = 0
      const taskId = newId()
      buses.b.subscribe(taskId, (note) => notes.push(note))
      buses.b.onWork(() => {
        woken += 1
      })
      const { task } = await create(stores.a, { header: { id: taskId } })
      // The creation's own notes first; then only what the reconnect brings counts.
      await until(() => notes.length === 1 && woken === 1, "the creation's notes on replica b")
      notes.length = 0
      woken = 0
      const admin = new pg.Client({ connectionString: db.url })
      await admin.connect()
      try {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = 'bus-b'`,
        )
        assert.equal(rows.length, 1)
      } finally {
        await admin.end()
      }
      // The catch-up read waits for the commit below, so it reads seq 3 however fast b reconnects.
      let committed = () => {}
      readGate = new Promise((resolve) => {
        committed = resolve
      })
      await until(() => !buses.b.listening, 'replica b to notice the lost connection')
      // Committed while replica b cannot hear (its NOTIFY is lost for b), or just after it listens again.
      await stores.a.append({ taskId: task.id, events: [status('WORKING')] })
      committed()
      await until(() => buses.b.listening && notes.length > 0, 'the catch-up note after reconnecting')
      // A commit between LISTEN and the catch-up read is both heard and read, so seq 3 may come
      // twice (followers skip what they hold); what counts is that it came and nothing else did.
      assert.deepEqual(
        new Set(notes.map((note) => JSON.stringify(note))),
        new Set([JSON.stringify({ taskId: task.id, seq: 3 })]),
      )
      assert.ok(woken >= 1, 'admission is woken after a reconnect')
      assert.ok(errors.length >= 1, 'the lost connection was reported')
      // And live notes flow again.
      await stores.a.append({ taskId: task.id, events: [completed] })
      await until(() => notes.some((note) => note.seq === 4), 'a live note after reconnecting')
      assert.deepEqual(notes.at(-1), { taskId: task.id, seq: 4 })
    })
  })
})
