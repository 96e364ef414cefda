/**
 * A replica cut off from PostgreSQL (not dead: partitioned) cannot renew its leases. It must stop
 * its handlers before the leases lapse, so that when another replica takes a task over, the two
 * never run it at the same time; after the network heals, its late writes are refused and it goes
 * back to work.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request } from '../helpers/server.ts'
import {
  clawpediaStream,
  Database,
  idsOf,
  type Recorder,
  type Replica,
  startRecorder,
  startReplicas,
  stopReplicas,
} from './helpers.ts'
import { type PgProxy, startPgProxy } from './pg-proxy.ts'

const LEASE_MS = 1_500
const ARGS = ['--lease-ms', String(LEASE_MS), '--poll-ms', '100']

describe('a replica partitioned from PostgreSQL', { skip: pgSkip }, () => {
  let db: TestDatabase
  let sql: Database
  let recorder: Recorder
  let proxy: PgProxy
  let replicas: Replica[] = []
  before(async () => {
    db = await createTestDatabase('partition')
    sql = await Database.open(db.url)
    recorder = await startRecorder()
    proxy = await startPgProxy(db.url)
    // The first replica reaches the database only through the relay; the second directly.
    replicas = await startReplicas([proxy.url, db.url], 2, ARGS)
  })
  after(async () => {
    proxy?.heal()
    await stopReplicas(replicas)
    await proxy?.close()
    await recorder?.close()
    await sql?.close()
    await db?.drop()
  })

  it('stops its handler before the lease lapses; the takeover never overlaps it', async () => {
    const [cut, healthy] = replicas as [Replica, Replica]
    const { body } = await request(`${cut.base('tracked')}/tasks`, {
      body: { input: { report: recorder.url, steps: 40, step_ms: 100 } },
    })
    const id: string = body.task_id
    await eventually(async () => recorder.startsOf(id)[0], 5_000, 'the handler to start')
    assert.equal(recorder.startsOf(id)[0]!.pid, cut.pid)
    await eventually(async () => ((await sql.events(id)).some((e) => e.kind === 'log') ? true : undefined))

    const partitionedAt = Date.now()
    proxy.partition()
    const takeover = await eventually(
      async () => recorder.startsOf(id)[1],
      // Generous: what matters is that the handler stopped before it, not how soon it came.
      30_000,
      'the healthy replica to take the task over',
    )
    assert.equal(takeover.pid, healthy.pid)
    const abort = recorder.aborts.find((a) => a.task === id && a.pid === cut.pid)
    assert.ok(abort, 'the partitioned replica stopped its handler on its own')
    assert.ok(
      abort.at < takeover.at,
      `stopped ${abort.at - partitionedAt} ms after the partition, taken over after ${takeover.at - partitionedAt} ms`,
    )

    proxy.heal()
    const done = await eventually(
      async () => {
        const task = (await request(`${healthy.base('tracked')}/tasks/${id}`)).body
        return task.status === 'COMPLETED' ? task : undefined
      },
      10_000,
      'the task to complete',
    )
    assert.equal(done.output.pid, healthy.pid)
    // Whatever the cut-off replica tried to write late was refused: each line once, one ending.
    const stream = await clawpediaStream(cut.base('tracked'), id)
    assert.deepEqual(
      idsOf(stream.events),
      (await sql.events(id)).filter((e) => e.kind !== 'input').map((e) => e.seq),
    )
    const logs = stream.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
    assert.deepEqual(
      logs,
      Array.from({ length: 40 }, (_, i) => `step ${i + 1}/40`),
    )
    assert.equal(recorder.startsOf(id).length, 2)

    // Healed, the replica works again.
    const again = await request(`${cut.base('tracked')}/tasks`, {
      body: { input: { report: recorder.url, steps: 1 } },
    })
    await eventually(
      async () => {
        const task = (await request(`${cut.base('tracked')}/tasks/${again.body.task_id}`)).body
        return task.status === 'COMPLETED' ? task : undefined
      },
      10_000,
      'a new task on the healed replica',
    )
  })
})
