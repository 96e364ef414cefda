/**
 * A replica that dies loses its leases: once a lease expires, another replica takes the task over
 * (a retryable agent runs it again; any other task fails AGENT_INTERRUPTED), keeps the lease with
 * its own heartbeats, and subscribers on the surviving replicas see the outcome. A replica that
 * shuts down gracefully hands its retryable tasks over without waiting for the lease.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request } from '../helpers/server.ts'
import {
  a2aStateOf,
  a2aSubscribe,
  clawpediaStream,
  Database,
  idsOf,
  pidOfOwner,
  type Recorder,
  type Replica,
  startRecorder,
  startReplicas,
  stopReplicas,
} from './helpers.ts'

const LEASE_MS = 1_500
const POLL_MS = 100

describe('failover between replicas', { skip: pgSkip }, () => {
  let db: TestDatabase
  let sql: Database
  let recorder: Recorder
  let replicas: Replica[] = []
  before(async () => {
    db = await createTestDatabase('failover')
    sql = await Database.open(db.url)
    recorder = await startRecorder()
    replicas = await startReplicas(db.url, 3, [
      '--lease-ms',
      String(LEASE_MS),
      '--poll-ms',
      String(POLL_MS),
      '--shutdown-grace-ms',
      '200',
    ])
  })
  after(async () => {
    await stopReplicas(replicas)
    await recorder?.close()
    await sql?.close()
    await db?.drop()
  })

  const create = async (replica: Replica, slug: string, input: object): Promise<string> => {
    const { status, body } = await request(`${replica.base(slug)}/tasks`, {
      body: { input: { report: recorder.url, ...input } },
    })
    assert.equal(status, 202, JSON.stringify(body))
    return body.task_id
  }
  const started = (id: string, n: number) =>
    eventually(
      async () => (recorder.startsOf(id).length >= n ? recorder.startsOf(id) : undefined),
      10_000,
      `run ${n} of task ${id}`,
    )
  const logged = (id: string, n: number) =>
    eventually(
      async () => ((await sql.events(id)).filter((e) => e.kind === 'log').length >= n ? true : undefined),
      5_000,
      `${n} log lines of ${id}`,
    )
  const stored = async (id: string) =>
    (await sql.events(id)).filter((e) => e.kind !== 'input').map((e) => e.seq)

  it('SIGKILL: the retryable task is taken over, the other fails AGENT_INTERRUPTED, subscribers elsewhere see both', async () => {
    const [doomed, second, third] = replicas as [Replica, Replica, Replica]
    // Twelve steps of 250 ms: the takeover run lasts two lease durations, which only heartbeats survive.
    const retryable = await create(doomed, 'tracked', { steps: 12, step_ms: 250 })
    const fragile = await create(doomed, 'tracked-fragile', { steps: 100, step_ms: 250 })
    for (const id of [retryable, fragile]) assert.equal((await started(id, 1))[0]!.pid, doomed.pid)
    const streams = {
      retryable: clawpediaStream(second.base('tracked'), retryable),
      retryableA2a: a2aSubscribe(third.base('tracked'), retryable),
      fragile: clawpediaStream(third.base('tracked-fragile'), fragile),
      fragileA2a: a2aSubscribe(second.base('tracked-fragile'), fragile),
    }
    await logged(retryable, 2)
    await logged(fragile, 2)
    await doomed.kill()

    const takeover = (await started(retryable, 2))[1]!
    // No upper bound on when: on a loaded machine heartbeats, polls and claims all run late.
    assert.ok([second.pid, third.pid].includes(takeover.pid), 'a surviving replica took the task')
    const failed = await eventually(
      async () => {
        const { body } = await request(`${second.base('tracked-fragile')}/tasks/${fragile}`)
        return body.status === 'FAILED' ? body : undefined
      },
      20_000,
      'the fragile task to fail',
    )
    assert.equal(failed.error.code, 'AGENT_INTERRUPTED')

    // While the takeover runs, its replica's heartbeats keep the lease in its name and in the future.
    let renewals = 0
    let lastExpiry = 0
    for (;;) {
      const [lease] = await sql.query<{
        owner: string | null
        live: boolean
        expires: Date | null
        state: string
      }>(
        `SELECT lease_owner AS owner, lease_expires_at > now() AS live, lease_expires_at AS expires, state
         FROM switchboard.tasks WHERE id = $1`,
        [retryable],
      )
      if (lease!.state !== 'WORKING') break
      assert.equal(pidOfOwner(lease!.owner), takeover.pid, 'the lease stays with the replica that took over')
      assert.ok(lease!.live, 'the lease never lapses while its holder lives')
      if (lease!.expires!.getTime() > lastExpiry && lastExpiry > 0) renewals += 1
      lastExpiry = lease!.expires!.getTime()
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.ok(renewals >= 4, `the lease was renewed ${renewals} times`)

    const done = (await request(`${third.base('tracked')}/tasks/${retryable}`)).body
    assert.equal(done.status, 'COMPLETED')
    assert.equal(done.output.pid, takeover.pid)
    assert.equal(recorder.startsOf(retryable).length, 2, 'one run before the kill, one after: no third')
    assert.equal(recorder.startsOf(fragile).length, 1, 'a task that is not retryable never runs twice')

    // Every subscriber, on both surviving replicas, saw every event once and the outcome.
    const clawpedia = await streams.retryable
    assert.deepEqual(idsOf(clawpedia.events), await stored(retryable))
    const logs = clawpedia.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
    assert.deepEqual(
      logs,
      Array.from({ length: 12 }, (_, i) => `step ${i + 1}/12`),
      'the re-run replayed the lines already logged instead of logging them twice',
    )
    assert.equal(JSON.parse(clawpedia.events.at(-1)!.data).status, 'COMPLETED')
    assert.equal(a2aStateOf((await streams.retryableA2a).events.at(-1)!), 'TASK_STATE_COMPLETED')
    const fragileStream = await streams.fragile
    assert.deepEqual(idsOf(fragileStream.events), await stored(fragile))
    const last = JSON.parse(fragileStream.events.at(-1)!.data)
    assert.equal(last.status, 'FAILED')
    assert.equal(last.error.code, 'AGENT_INTERRUPTED')
    assert.equal(a2aStateOf((await streams.fragileA2a).events.at(-1)!), 'TASK_STATE_FAILED')
  })

  it('SIGTERM: running handlers are interrupted after the grace period and a retryable task moves at once', async () => {
    const [leaving, staying] = replicas.filter(
      (r) => r.child.exitCode === null && r.child.signalCode === null,
    ) as [Replica, Replica]
    const retryable = await create(leaving, 'tracked', { steps: 20, step_ms: 100 })
    const fragile = await create(leaving, 'tracked-fragile', { steps: 100, step_ms: 100 })
    for (const id of [retryable, fragile]) assert.equal((await started(id, 1))[0]!.pid, leaving.pid)
    await logged(retryable, 1)
    const stoppedAt = Date.now()
    assert.equal(await leaving.stop(), 0, 'a clean exit')

    const fragileTask = (await request(`${staying.base('tracked-fragile')}/tasks/${fragile}`)).body
    assert.equal(fragileTask.status, 'FAILED', 'marked before the process exited')
    assert.equal(fragileTask.error.code, 'AGENT_INTERRUPTED')
    const handedOver = (await started(retryable, 2))[1]!
    assert.equal(handedOver.pid, staying.pid)
    // Released, not expired: the next poll finds it, well before a lease would have run out.
    assert.ok(
      handedOver.at - stoppedAt < LEASE_MS,
      `handed over ${handedOver.at - stoppedAt} ms after SIGTERM`,
    )
    const done = await eventually(
      async () => {
        const { body } = await request(`${staying.base('tracked')}/tasks/${retryable}`)
        return body.status === 'COMPLETED' ? body : undefined
      },
      10_000,
      'the handed-over task to complete',
    )
    assert.equal(done.output.pid, staying.pid)
    assert.ok(
      recorder.aborts.some((a) => a.task === retryable && a.pid === leaving.pid),
      'the first run was aborted',
    )
  })
})
