/**
 * Durability across kill -9: a real `switchboard serve` process is SIGKILLed at the worst moments
 * and restarted on the same data directory.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { spawnServer } from '../helpers/process.ts'
import { eventually, request } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'

const AGENTS = ['src/demo/index.ts', 'test/fixtures/restart-agents.ts']
const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-restart-'))
  dirs.push(dir)
  return dir
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const start = (dataDir: string) => spawnServer(AGENTS, { SWITCHBOARD_DATA: dataDir })
const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED']
const finalState = (url: string, slug: string, id: string) =>
  eventually(
    async () => {
      const { body } = await request(`${url}/agents/${slug}/tasks/${id}`)
      return TERMINAL.includes(body.status) ? body : undefined
    },
    10_000,
    `task ${id} to finish`,
  )

describe('restart after kill -9', () => {
  it('every task acknowledged with 202 right before the kill exists after restart and ends in a defined state', async () => {
    const dataDir = freshDir()
    const first = await start(dataDir)
    const ids: { slug: string; id: string }[] = []
    for (let i = 0; i < 20; i++) {
      const slug = i % 2 === 0 ? 'fragile' : 'long-runner'
      const input = slug === 'fragile' ? { ms: 300 } : { steps: 2, step_ms: 100 }
      const response = await request(`${first.url}/agents/${slug}/tasks`, { body: { input } })
      assert.equal(response.status, 202)
      ids.push({ slug, id: response.body.task_id })
    }
    await first.kill()

    const second = await start(dataDir)
    try {
      for (const { slug, id } of ids) {
        const task = await finalState(second.url, slug, id)
        if (slug === 'long-runner') {
          assert.equal(task.status, 'COMPLETED', 'a retryable agent re-runs the interrupted task')
        } else {
          assert.ok(
            task.status === 'COMPLETED' ||
              (task.status === 'FAILED' && task.error.code === 'AGENT_INTERRUPTED'),
            `fragile task ended ${task.status} ${JSON.stringify(task.error)}`,
          )
        }
      }
    } finally {
      await second.stop()
    }
  })

  it('a task killed while WORKING fails with AGENT_INTERRUPTED, or re-runs when its agent is retryable', async () => {
    const dataDir = freshDir()
    const first = await start(dataDir)
    const fragile = (await request(`${first.url}/agents/fragile/tasks`, { body: { input: { ms: 60_000 } } }))
      .body.task_id
    const retryable = (
      await request(`${first.url}/agents/long-runner/tasks`, { body: { input: { steps: 3, step_ms: 200 } } })
    ).body.task_id
    for (const [slug, id] of [
      ['fragile', fragile],
      ['long-runner', retryable],
    ]) {
      await readSse(`${first.url}/agents/${slug}/tasks/${id}/stream`, {
        stopWhen: (e) => e.event === 'log',
      })
    }
    assert.equal((await request(`${first.url}/agents/fragile/tasks/${fragile}`)).body.status, 'WORKING')
    await first.kill()

    const second = await start(dataDir)
    try {
      const failed = await finalState(second.url, 'fragile', fragile)
      assert.equal(failed.status, 'FAILED')
      assert.equal(failed.error.code, 'AGENT_INTERRUPTED')
      const rerun = await finalState(second.url, 'long-runner', retryable)
      assert.equal(rerun.status, 'COMPLETED')
      assert.equal(rerun.output.steps, 3)
    } finally {
      await second.stop()
    }
  })

  it('a multi-turn exchange survives a restart between the turns', async () => {
    const dataDir = freshDir()
    const first = await start(dataDir)
    const base = (url: string) => `${url}/agents/report-builder`
    const id = (
      await request(`${base(first.url)}/tasks`, { body: { input: { subject: 'glaciers', author: 'Ida' } } })
    ).body.task_id
    await readSse(`${base(first.url)}/tasks/${id}/stream`, {
      stopWhen: (e) => e.event === 'status' && JSON.parse(e.data).status === 'INPUT_REQUIRED',
    })
    await first.kill()

    const second = await start(dataDir)
    try {
      const waiting = await request(`${base(second.url)}/tasks/${id}`)
      assert.equal(waiting.body.status, 'INPUT_REQUIRED')
      assert.match(waiting.body.prompt, /glaciers/)
      const answered = await request(`${base(second.url)}/tasks/${id}/input`, {
        body: { input: { sections: ['Formation', 'Retreat'] } },
      })
      assert.equal(answered.status, 202)
      const done = await finalState(second.url, 'report-builder', id)
      assert.equal(done.status, 'COMPLETED')
      assert.deepEqual(done.output, { title: 'Report: glaciers', sections: ['Formation', 'Retreat'] })
      const { events } = await readSse(`${base(second.url)}/tasks/${id}/stream`)
      const logs = events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
      assert.deepEqual(
        logs,
        ['Planning a report on glaciers', 'Writing 2 sections'],
        'replay emitted nothing twice',
      )
      const { body } = await request(`${base(second.url)}/tasks/${id}/artifacts`)
      assert.equal(body.artifacts.length, 1)
      assert.match(await (await fetch(body.artifacts[0].content)).text(), /_by Ida_[\s\S]*## 2\. Retreat/)
    } finally {
      await second.stop()
    }
  })

  it('SIGTERM shuts down gracefully: a non-retryable running task is failed, not left WORKING', async () => {
    const dataDir = freshDir()
    const first = await start(dataDir)
    const id = (await request(`${first.url}/agents/fragile/tasks`, { body: { input: { ms: 60_000 } } })).body
      .task_id
    await readSse(`${first.url}/agents/fragile/tasks/${id}/stream`, { stopWhen: (e) => e.event === 'log' })
    assert.equal(await first.stop(), 0)
    const second = await start(dataDir)
    try {
      const task = (await request(`${second.url}/agents/fragile/tasks/${id}`)).body
      assert.equal(task.status, 'FAILED')
      assert.equal(task.error.code, 'AGENT_INTERRUPTED')
    } finally {
      await second.stop()
    }
  })
})
