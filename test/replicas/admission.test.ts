/**
 * Work admission across replicas: each replica runs at most `--concurrency` tasks, and at most
 * `--agent-concurrency` of one agent; the excess waits in SUBMITTED, unleased, and whichever
 * replica has room picks it up. The limits are per replica, so three replicas run three times as much.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { eventually, request } from '../helpers/server.ts'
import {
  AGENTS,
  Database,
  pidOfOwner,
  type Recorder,
  type Replica,
  sleep,
  startRecorder,
  startReplicas,
  stopReplicas,
} from './helpers.ts'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('admission across replicas', { skip: pgSkip }, () => {
  let db: TestDatabase
  let sql: Database
  let recorder: Recorder
  let replicas: Replica[] = []
  before(async () => {
    db = await createTestDatabase('admission')
    sql = await Database.open(db.url)
    recorder = await startRecorder()
    replicas = await startReplicas(db.url, 3, [
      '--concurrency',
      '3',
      '--agent-concurrency',
      'tracked-fragile=1',
      '--poll-ms',
      '100',
    ])
  })
  after(async () => {
    recorder?.release()
    await stopReplicas(replicas)
    await recorder?.close()
    await sql?.close()
    await db?.drop()
  })

  it('limits hold per replica and per agent; waiting tasks go to any replica with room', async () => {
    const [first] = replicas as [Replica]
    // Everything is sent to one replica, which can run only three of them (one fragile) itself.
    // Runs wait in their first step until the test releases them, so however slowly the tasks are
    // sent, the replicas fill up (3 × 3 = 9 running) and the other six wait.
    recorder.hold()
    const sent: { id: string; slug: string }[] = []
    for (const slug of [...Array(6).fill('tracked-fragile'), ...Array(9).fill('tracked')] as string[]) {
      const { status, body } = await request(`${first.base(slug)}/tasks`, {
        body: { input: { report: recorder.url, steps: 4, step_ms: 300 } },
      })
      assert.equal(status, 202)
      sent.push({ id: body.task_id, slug })
    }
    const ids = sent.map((s) => s.id)

    let waitingWhenFull: number | undefined
    const fillDeadline = Date.now() + 60_000
    const peak = new Map<string, number>()
    for (;;) {
      const full =
        waitingWhenFull === undefined && ids.filter((id) => recorder.startsOf(id).length > 0).length === 9
      const rows = await sql.query<{ owner: string | null; agent: string; state: string; n: number }>(
        `SELECT lease_owner AS owner, agent, state, count(*)::int AS n FROM switchboard.tasks
         WHERE id = ANY($1) GROUP BY 1, 2, 3`,
        [ids],
      )
      const running = new Map<string, number>()
      let waiting = 0
      let open = 0
      for (const row of rows) {
        if (row.state !== 'SUBMITTED' && row.state !== 'WORKING') continue
        open += row.n
        if (row.owner === null) {
          waiting += row.n
          continue
        }
        for (const key of [row.owner, `${row.owner}/${row.agent}`])
          running.set(key, (running.get(key) ?? 0) + row.n)
      }
      for (const [key, n] of running) {
        peak.set(key, Math.max(peak.get(key) ?? 0, n))
        const limit = key.endsWith('/tracked-fragile') ? 1 : 3
        assert.ok(n <= limit, `${key} runs ${n} at once, over its limit of ${limit}`)
      }
      if (full) {
        waitingWhenFull = waiting
        recorder.release()
      }
      if (open === 0) break
      if (waitingWhenFull === undefined && Date.now() > fillDeadline)
        assert.fail(`the replicas never filled up: ${JSON.stringify(rows)}`)
      await sleep(25)
    }
    assert.equal(waitingWhenFull, 6, 'with every replica full, the excess waited in SUBMITTED, unleased')

    for (const { id, slug } of sent) {
      const { body } = await request(`${replicas[2]!.base(slug)}/tasks/${id}`)
      assert.equal(body.status, 'COMPLETED', JSON.stringify(body))
      assert.equal(recorder.startsOf(id).length, 1)
    }
    for (const replica of replicas) {
      const ran = recorder.starts.filter((s) => ids.includes(s.task) && s.pid === replica.pid)
      assert.ok(ran.length > 0, `replica ${replica.pid} picked up waiting work`)
    }
    // Some replica reached each limit: the limits, not a lack of work, held the rest back.
    const owners = [...peak.keys()].filter((k) => !k.includes('/'))
    assert.ok(owners.some((o) => peak.get(o) === 3) && owners.every((o) => pidOfOwner(o) !== undefined))
    assert.ok([...peak].some(([key, n]) => key.endsWith('/tracked-fragile') && n === 1))
  })

  it('refuses an agent limit that names no hosted agent', async () => {
    const serve = ['--import', 'tsx', 'src/cli/main.ts', 'serve', ...AGENTS]
    const refused = run(process.execPath, [...serve, '--store', db.url, '--agent-concurrency', 'trackd=2'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0' },
    })
    await assert.rejects(refused, (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2)
      assert.match(error.stderr, /"trackd", which is not a hosted agent/)
      return true
    })
  })

  it('a replica started later takes waiting work at once', async () => {
    const [first] = replicas as [Replica]
    // Fill every replica's fragile slot with long tasks and queue three more behind them.
    const ids: string[] = []
    for (let i = 0; i < 6; i++) {
      const { body } = await request(`${first.base('tracked-fragile')}/tasks`, {
        body: { input: { report: recorder.url, steps: 300, step_ms: 100 } },
      })
      ids.push(body.task_id)
    }
    await eventually(async () =>
      ids.filter((id) => recorder.startsOf(id).length > 0).length === 3 ? true : undefined,
    )
    const [late] = await startReplicas(db.url, 1, ['--agent-concurrency', 'tracked-fragile=1'])
    replicas.push(late!)
    const taken = await eventually(
      async () => recorder.starts.find((s) => ids.includes(s.task) && s.pid === late!.pid),
      5_000,
      'the new replica to take a waiting task',
    )
    assert.equal(
      recorder.starts.filter((s) => ids.includes(s.task)).length,
      4,
      'only the new replica had room',
    )
    assert.ok(taken)
    for (const id of ids)
      await request(`${late!.base('tracked-fragile')}/tasks/${id}/cancel`, { method: 'POST' })
  })
})
