/**
 * The three-replica example (examples/replicas) does what its README says: one command starts
 * three replicas and a round-robin proxy, tasks work through the proxy whichever replica answers,
 * and an interrupt stops everything, leaving no connection to the database behind.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { captureOutput } from '../helpers/process.ts'
import { eventually, request } from '../helpers/server.ts'
import { closedPort } from '../push/helpers.ts'
import { clawpediaStream } from './helpers.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('the three-replica example', { skip: pgSkip }, () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase('example')
  })
  after(async () => {
    await db?.drop()
  })

  it('starts three replicas behind a proxy with one command and stops them all on an interrupt', async () => {
    const port = await closedPort()
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/replicas/main.ts', db.url], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const captured = captureOutput(child)
    const exited = once(child, 'exit')
    try {
      // Safety nets for a hang, not bounds on speed: three cold starts under load take a while.
      const deadline = Date.now() + 120_000
      while (!/Proxy ready on (\S+)/.test(captured())) {
        assert.ok(
          Date.now() < deadline && child.exitCode === null,
          `the example did not start:\n${captured()}`,
        )
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const proxy = /Proxy ready on (\S+)/.exec(captured())![1]!
      assert.equal(proxy, `http://127.0.0.1:${port}`)
      const pids = [...captured().matchAll(/replica \d: http:\/\/127\.0\.0\.1:\d+ {2}pid (\d+)/g)].map(
        (m) => m[1],
      )
      assert.equal(new Set(pids).size, 3, captured())

      const base = `${proxy}/agents/long-runner`
      const { status, body } = await request(`${base}/tasks`, { body: { input: { steps: 3, step_ms: 50 } } })
      assert.equal(status, 202)
      const stream = await clawpediaStream(base, body.task_id)
      assert.equal(JSON.parse(stream.events.at(-1)!.data).status, 'COMPLETED')
      // Three reads, three replicas in turn: the same task everywhere.
      const reads = await Promise.all([1, 2, 3].map(() => request(`${base}/tasks/${body.task_id}`)))
      for (const read of reads) assert.deepEqual(read.body, reads[0]!.body)
    } finally {
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      const [code] = await exited
      clearTimeout(timer)
      assert.equal(code, 0, captured())
    }
    // A backend leaves pg_stat_activity a moment after its client has gone.
    await eventually(
      async () => ((await db.openConnections()) === 0 ? true : undefined),
      30_000,
      'no connections left',
    )
  })
})
