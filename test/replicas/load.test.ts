/**
 * Many tasks through three replicas at once: 50 clients send 2,000 tasks round-robin. Every task
 * completes exactly once (each handler run reports to a recording endpoint, so a second run would
 * show), streams followed on a replica other than the creator's carry exactly the stored log, and
 * the push receiver gets every status change of every task once, in order.
 *
 * SWITCHBOARD_REPLICA_LOAD_TASKS and SWITCHBOARD_REPLICA_LOAD_CLIENTS change the size; the
 * default fits the time budget of a two-core machine (see docs/deployment.md for measured runs).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request } from '../helpers/server.ts'
import type { ReceivedEvent } from '../helpers/sse.ts'
import {
  a2aSubscribe,
  clawpediaStream,
  Database,
  idsOf,
  type Replica,
  type Sink,
  startReplicas,
  startSink,
  stopReplicas,
} from './helpers.ts'

const TASKS = Number(process.env.SWITCHBOARD_REPLICA_LOAD_TASKS ?? 2_000)
const CLIENTS = Number(process.env.SWITCHBOARD_REPLICA_LOAD_CLIENTS ?? 50)
/** Every SAMPLE-th task runs a little longer and is followed live on another replica. */
const SAMPLE = 10
/** Bounds for completion and for the outbox to drain: generous, since the machine may be shared. */
const WAIT_MS = Math.max(60_000, TASKS * 60)

interface Created {
  id: string
  creator: number
  stream?: Promise<{ events: ReceivedEvent[]; dialect: string }>
}

describe('load across replicas', { skip: pgSkip }, () => {
  let db: TestDatabase
  let sql: Database
  // Handler runs report to `{sink}/run/start`, pushes go to `{sink}/hook`.
  let sink: Sink
  let replicas: Replica[] = []
  before(async () => {
    db = await createTestDatabase('load')
    sql = await Database.open(db.url)
    sink = await startSink()
    replicas = await startReplicas(db.url, 3, ['--notify-url', `${sink.url}/hook`])
  })
  after(async () => {
    await stopReplicas(replicas)
    await sink?.close()
    await sql?.close()
    await db?.drop()
  })

  it(`${TASKS} tasks from ${CLIENTS} clients round-robin: each runs once, streams and pushes are exact`, async (t) => {
    const began = Date.now()
    const created: Created[] = []
    let next = 0
    const client = async (): Promise<void> => {
      while (next < TASKS) {
        const i = next++
        const creator = i % replicas.length
        const sampled = i % SAMPLE === 0
        const input = sampled ? { steps: 3, step_ms: 100 } : { steps: 1, step_ms: 0 }
        const { status, body } = await request(`${replicas[creator]!.base('tracked')}/tasks`, {
          body: { input: { report: `${sink.url}/run`, ...input } },
        })
        assert.equal(status, 202, JSON.stringify(body))
        const task: Created = { id: body.task_id, creator }
        if (sampled) task.stream = follow(replicas[(creator + 1) % replicas.length]!, body.task_id, i)
        created.push(task)
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, client))
    const submitted = Date.now()

    const ids = created.map((c) => c.id)
    await eventually(
      async () => {
        const [row] = await sql.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM switchboard.tasks WHERE id = ANY($1) AND state = 'COMPLETED'",
          [ids],
        )
        return row!.n === TASKS ? true : undefined
      },
      WAIT_MS,
      `${TASKS} tasks to complete`,
    )
    const completed = Date.now()
    let lastCounts: unknown
    const outbox = await eventually(
      async () => {
        const { counts } = (await request(`${replicas[2]!.url}/admin/deliveries/stats`)).body
        lastCounts = counts
        return counts.pending === 0 ? counts : undefined
      },
      WAIT_MS,
      'the outbox to drain',
    ).catch((error: unknown) => {
      // What the replicas logged (warnings and worse: retried and dead deliveries) says why.
      const logs = replicas.map((r, i) => `replica ${i}:\n${r.output().split('\n').slice(-40).join('\n')}`)
      throw new Error(
        `${(error as Error).message}: ${JSON.stringify(lastCounts)} ${Date.now() - completed} ms after ` +
          `the tasks completed (${completed - submitted} ms after the last was submitted)\n${logs.join('\n')}`,
      )
    })
    const drained = Date.now()
    assert.deepEqual(outbox, { pending: 0, delivered: TASKS * 3, dead: 0 })
    const records = await sink.records()
    const starts = records.filter((r) => r.path === '/run/start')
    const pushes = records.filter((r) => r.path === '/hook')

    // Exactly once: one handler run per task, and the runs spread over every replica.
    assert.equal(starts.length, TASKS, 'one handler run per task, no more')
    const runs = new Map<string, number>()
    for (const start of starts) runs.set(start.query.task!, (runs.get(start.query.task!) ?? 0) + 1)
    for (const id of ids) assert.equal(runs.get(id), 1, `task ${id} ran ${runs.get(id) ?? 0} times`)
    const byReplica = replicas.map((r) => starts.filter((s) => Number(s.query.pid) === r.pid).length)
    for (const count of byReplica) assert.ok(count > 0, `every replica ran tasks: ${byReplica}`)

    // The stored log per task, as (seq, kind), for the streams and the pushes.
    const log = new Map<string, { seq: number; kind: string }[]>()
    for (const row of await sql.storedEvents(ids)) {
      log.set(row.task_id, [...(log.get(row.task_id) ?? []), row])
    }

    // Streams followed on another replica: every frame id is the next stored event, none missing.
    let followed = 0
    for (const task of created) {
      if (!task.stream) continue
      const { events, dialect } = await task.stream
      const expected = log
        .get(task.id)!
        .filter((e) => e.kind !== 'input')
        .map((e) => e.seq)
      assert.deepEqual(idsOf(events), expected, `${dialect} stream of ${task.id}`)
      followed += 1
    }
    assert.equal(followed, Math.ceil(TASKS / SAMPLE))

    // Push: per task, every status change once, in order; no duplicate anywhere.
    const received = new Map<string, number[]>()
    for (const r of pushes) {
      // The key is <task_id>:<config_id>:<sequence> (docs/push.md).
      const [taskId, , seq] = String(r.idempotencyKey).split(':')
      received.set(taskId!, [...(received.get(taskId!) ?? []), Number(seq)])
    }
    let duplicates = 0
    const wrong: string[] = []
    for (const id of ids) {
      const seqs = received.get(id) ?? []
      duplicates += seqs.length - new Set(seqs).size
      const statuses = log
        .get(id)!
        .filter((e) => e.kind === 'status')
        .map((e) => e.seq)
      if (seqs.join() !== statuses.join())
        wrong.push(`${id}: pushed ${seqs}, stored status changes ${statuses}`)
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
    t.diagnostic(
      `load: ${TASKS} tasks, ${CLIENTS} clients: submitted in ${seconds(submitted - began)}, ` +
        `completed ${seconds(completed - began)}, pushes drained ${seconds(drained - began)}; ` +
        `runs per replica ${byReplica.join('/')}; ${pushes.length} pushes, ${duplicates} duplicates`,
    )
    assert.equal(duplicates, 0, 'no duplicate deliveries in normal operation')
    assert.deepEqual(wrong, [], 'every status change of every task pushed once, in order')
    assert.equal(pushes.length, TASKS * 3)
  })

  /** Follows a task on a replica that did not create it: Clawpedia and A2A in turn. */
  const follow = async (replica: Replica, id: string, i: number) => {
    // Last-Event-ID 0 makes A2A replay from the start and go on live, whatever the task's state by now.
    const dialect = (i / SAMPLE) % 2 === 0 ? 'clawpedia' : 'a2a'
    const stream =
      dialect === 'clawpedia'
        ? await clawpediaStream(replica.base('tracked'), id, { timeoutMs: WAIT_MS })
        : await a2aSubscribe(replica.base('tracked'), id, { lastEventId: 0, timeoutMs: WAIT_MS })
    return { events: stream.events, dialect }
  }
})
