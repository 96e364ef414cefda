/**
 * Three `switchboard serve --store postgres://…` processes on one database behave as one server:
 * a task created on one is streamed from another and cancelled on a third, streams resume across
 * replicas, every replica lists and reads the same tasks, and a terminal state is written once.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request } from '../helpers/server.ts'
import {
  a2aCall,
  a2aStateOf,
  a2aSubscribe,
  clawpediaStream,
  Database,
  idsOf,
  type Recorder,
  type Replica,
  startRecorder,
  startReplicas,
  stopReplicas,
  TERMINAL,
} from './helpers.ts'

interface A2aList {
  tasks: { id: string; status: { state: string } }[]
}

describe('three replicas, one set of tasks', { skip: pgSkip }, () => {
  let db: TestDatabase
  let sql: Database
  let recorder: Recorder
  let replicas: Replica[] = []
  before(async () => {
    db = await createTestDatabase('cluster')
    sql = await Database.open(db.url)
    recorder = await startRecorder()
    replicas = await startReplicas(db.url, 3, ['--lease-ms', '2000', '--poll-ms', '200'])
  })
  after(async () => {
    await stopReplicas(replicas)
    await recorder?.close()
    await sql?.close()
    await db?.drop()
  })

  const create = async (replica: Replica, input: object, slug = 'tracked'): Promise<string> => {
    const { status, body } = await request(`${replica.base(slug)}/tasks`, {
      body: { input: { report: recorder.url, ...input } },
    })
    assert.equal(status, 202, JSON.stringify(body))
    return body.task_id
  }

  /** The sequence numbers a stream must show: every stored event but the input (it has no frame). */
  const streamedSeqs = async (taskId: string, after = 0): Promise<number[]> =>
    (await sql.events(taskId)).filter((e) => e.kind !== 'input' && e.seq > after).map((e) => e.seq)

  it('create on the first, stream on the second, cancel on the third, list from any', async () => {
    const [first, second, third] = replicas as [Replica, Replica, Replica]
    const id = await create(first, { steps: 200, step_ms: 50 })
    const clawpedia = clawpediaStream(second.base('tracked'), id)
    const a2a = a2aSubscribe(third.base('tracked'), id)
    const start = await eventually(async () => recorder.startsOf(id)[0], 5_000, 'the handler to start')
    assert.equal(start.pid, first.pid, 'the replica that accepted the task, having capacity, runs it')
    await eventually(
      async () => ((await sql.events(id)).filter((e) => e.kind === 'log').length >= 3 ? true : undefined),
      5_000,
      'three log lines',
    )

    const cancel = await request(`${third.base('tracked')}/tasks/${id}/cancel`, { method: 'POST' })
    assert.equal(cancel.status, 202)
    assert.equal(cancel.body.status, 'CANCELLED')
    const abort = await eventually(
      async () => recorder.aborts.find((a) => a.task === id),
      10_000,
      'the handler on the first replica to be aborted',
    )
    assert.equal(abort.pid, first.pid)

    // The second replica's Clawpedia stream: every event once, in order, ending with the cancel.
    const streamed = await clawpedia
    assert.ok(streamed.closedByServer)
    const log = await streamedSeqs(id)
    assert.deepEqual(idsOf(streamed.events), log)
    const last = streamed.events.at(-1)!
    assert.equal(last.event, 'status')
    assert.equal(JSON.parse(last.data).status, 'CANCELLED')
    // The third replica's A2A subscription: the task, then every later event, ending CANCELED.
    const subscribed = await a2aSubscribe(third.base('tracked'), id, { lastEventId: 0 })
    const live = await a2a
    const snapshotSeq = Number(live.events[0]!.id)
    assert.ok(JSON.parse(live.events[0]!.data).result.task, 'the first item is the task')
    assert.deepEqual(idsOf(live.events.slice(1)), await streamedSeqs(id, snapshotSeq))
    assert.equal(a2aStateOf(live.events.at(-1)!), 'TASK_STATE_CANCELED')
    assert.deepEqual(idsOf(subscribed.events), log, 'a replay from Last-Event-ID 0 shows the whole log')

    // Resume from the middle, on a replica other than the one that served the first part.
    const middle = log[Math.floor(log.length / 2)]!
    const resumed = await clawpediaStream(first.base('tracked'), id, { lastEventId: middle })
    assert.deepEqual(idsOf(resumed.events), await streamedSeqs(id, middle))
    const resumedA2a = await a2aSubscribe(second.base('tracked'), id, { lastEventId: middle })
    assert.deepEqual(idsOf(resumedA2a.events), await streamedSeqs(id, middle))

    // The terminal state was written once, by the cancel; every replica reads the same task.
    const terminal = (await sql.events(id)).filter((e) => e.kind === 'status' && TERMINAL.includes(e.state!))
    assert.deepEqual(
      terminal.map((e) => e.state),
      ['CANCELLED'],
    )
    const reads = await Promise.all(replicas.map((r) => request(`${r.base('tracked')}/tasks/${id}`)))
    for (const read of reads) assert.deepEqual(read.body, reads[0]!.body)
    const lists = await Promise.all(
      replicas.map((r) => a2aCall<A2aList>(r.base('tracked'), 'ListTasks', { pageSize: 100 })),
    )
    for (const list of lists) assert.deepEqual(list, lists[0])
    assert.equal(lists[0]!.tasks.find((t) => t.id === id)?.status.state, 'TASK_STATE_CANCELED')
    for (const replica of replicas) {
      const again = await request(`${replica.base('tracked')}/tasks/${id}/cancel`, { method: 'POST' })
      assert.equal(again.status, 409, 'a cancelled task cannot be cancelled again, on any replica')
    }
  })

  it('a live stream follows a task running elsewhere and resumes on a third replica, in both dialects', async () => {
    const [first, second, third] = replicas as [Replica, Replica, Replica]
    const id = await create(second, { steps: 16, step_ms: 60 })
    // Clawpedia: read five log lines on the third replica, hang up, resume on the first.
    const part = await clawpediaStream(third.base('tracked'), id, {
      stopWhen: (e) => e.event === 'log' && Number(e.id) >= 8,
    })
    const held = idsOf(part.events).at(-1)!
    const rest = await clawpediaStream(first.base('tracked'), id, { lastEventId: held })
    const whole = [...idsOf(part.events), ...idsOf(rest.events)]
    assert.deepEqual(whole, await streamedSeqs(id))
    assert.equal(JSON.parse(rest.events.at(-1)!.data).status, 'COMPLETED')
    assert.ok(
      rest.events.some((e) => e.event === 'log'),
      'the resumed part was live, not a replay',
    )

    // A2A on the same kind of split, on a task that is still running when the subscription opens.
    const next = await create(second, { steps: 16, step_ms: 60 })
    await eventually(async () => recorder.startsOf(next)[0], 5_000, 'the second task to start')
    const opened = await a2aSubscribe(first.base('tracked'), next, {
      stopWhen: (e) => e.id !== undefined && Number(e.id) >= 9 && a2aStateOf(e) !== undefined,
    })
    const snapshot = Number(opened.events[0]!.id)
    const heldA2a = idsOf(opened.events).at(-1)!
    const resumed = await a2aSubscribe(third.base('tracked'), next, { lastEventId: heldA2a })
    assert.deepEqual(
      [...idsOf(opened.events.slice(1)), ...idsOf(resumed.events)],
      await streamedSeqs(next, snapshot),
    )
    assert.equal(a2aStateOf(resumed.events.at(-1)!), 'TASK_STATE_COMPLETED')
  })

  it('cancels racing on three replicas against the handler finishing: one terminal state per task', async () => {
    // From handlers that finish at once to ones still sleeping when the cancels land, and the races
    // between. The last four sleep an hour: under load all of the first twenty can finish before the
    // cancels arrive (seen beside two busy loops), and the test must still see a cancel win.
    const ids = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        create(replicas[i % 3]!, { steps: 1, step_ms: i < 20 ? i * 20 : 3_600_000 }),
      ),
    )
    await eventually(async () => {
      const done = await sql.query(
        "SELECT 1 FROM switchboard.tasks WHERE id = ANY($1) AND state = 'COMPLETED'",
        [ids],
      )
      return done.length > 0 ? true : undefined
    })
    const answers = await Promise.all(
      ids.map((id) =>
        Promise.all(
          replicas.map((r) => request(`${r.base('tracked')}/tasks/${id}/cancel`, { method: 'POST' })),
        ),
      ),
    )
    let cancelled = 0
    for (const [i, id] of ids.entries()) {
      const statuses = answers[i]!.map((a) => a.status).sort()
      const task = await eventually(async () => {
        const { body } = await request(`${replicas[(i + 1) % 3]!.base('tracked')}/tasks/${id}`)
        return TERMINAL.includes(body.status) ? body : undefined
      })
      const terminal = (await sql.events(id)).filter(
        (e) => e.kind === 'status' && TERMINAL.includes(e.state!),
      )
      assert.equal(terminal.length, 1, `task ${id}: ${JSON.stringify(terminal)}`)
      assert.equal(terminal[0]!.state, task.status)
      if (task.status === 'CANCELLED') {
        cancelled += 1
        assert.deepEqual(statuses, [202, 409, 409], 'exactly one cancel wins')
      } else {
        assert.equal(task.status, 'COMPLETED')
        assert.deepEqual(statuses, [409, 409, 409], 'a completed task is not cancelled')
      }
    }
    assert.ok(cancelled > 0 && cancelled < ids.length, `both outcomes occur (${cancelled} cancelled)`)
  })

  it('an answer sent to one replica resumes the task wherever there is room; idempotent creates agree', async () => {
    const [first, second, third] = replicas as [Replica, Replica, Replica]
    const base = (r: Replica) => r.base('report-builder')
    const id = (
      await request(`${base(first)}/tasks`, { body: { input: { subject: 'tides', author: 'Ada' } } })
    ).body.task_id
    const asking = await clawpediaStream(third.base('report-builder'), id, {
      stopWhen: (e) => e.event === 'status' && JSON.parse(e.data).status === 'INPUT_REQUIRED',
    })
    assert.match(JSON.parse(asking.events.at(-1)!.data).prompt, /tides/)
    const answered = await request(`${base(second)}/tasks/${id}/input`, {
      body: { input: { sections: ['Moon'] } },
    })
    assert.equal(answered.status, 202)
    const rest = await clawpediaStream(base(third), id, { lastEventId: idsOf(asking.events).at(-1)! })
    const done = JSON.parse(rest.events.at(-1)!.data)
    assert.equal(done.status, 'COMPLETED')
    assert.deepEqual(done.output, { title: 'Report: tides', sections: ['Moon'] })
    const logs = [...asking.events, ...rest.events]
      .filter((e) => e.event === 'log')
      .map((e) => JSON.parse(e.data).message)
    assert.deepEqual(
      logs,
      ['Planning a report on tides', 'Writing 1 sections'],
      'the resumed run replayed, not repeated',
    )

    // The same Idempotency-Key on three replicas at once: one task, whichever replica wins.
    const key = `replicas-${Date.now()}`
    const creates = await Promise.all(
      replicas.map((r) =>
        request(`${r.base('tracked')}/tasks`, {
          headers: { 'idempotency-key': key },
          body: { input: { report: recorder.url } },
        }),
      ),
    )
    const taskIds = new Set(creates.map((c) => c.body.task_id))
    assert.equal(taskIds.size, 1, `one task for one key: ${[...taskIds]}`)
    const [only] = taskIds
    // Once the task completed no run of it can start any more: count its runs then.
    await eventually(
      async () =>
        (await request(`${replicas[0]!.base('tracked')}/tasks/${only}`)).body.status === 'COMPLETED'
          ? true
          : undefined,
      20_000,
      'the task to complete',
    )
    assert.equal(recorder.startsOf(only).length, 1)
  })
})
