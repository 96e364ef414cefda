import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `bench/wal-frames.ts`: the WAL pages a stream task writes, behind bench/README.md's reading. */
describe('the WAL frames script', () => {
  it('counts the frames the tasks wrote and names the tables and indexes they belong to', async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/wal-frames.ts',
      '--tasks',
      '64',
      '--warm',
      '32',
    ])
    const summary =
      /^64 tasks of 10 artifacts after 32: (\d+) frames in (\d+) commits, ([\d.]+) frames/m.exec(stdout)
    assert.ok(summary, stdout)
    const [, frames, commits] = summary.map(Number) as [number, number, number]
    // Each task is two commits at the least shared with the others in flight, and each writes pages.
    assert.ok(commits > 0 && frames >= commits, stdout)
    const rows = [...stdout.matchAll(/^\| (\S+) \((\w+)\) \| ([\d.]+) \|$/gm)]
    const names = new Set(rows.map(([, name]) => name))
    for (const table of ['tasks', 'events', 'artifacts', 'idempotency_keys'])
      assert.ok(names.has(table), stdout)
    const perTask = rows.reduce((sum, [, , , count]) => sum + Number(count), 0)
    assert.ok(Math.abs(perTask * 64 - frames) < rows.length, `${perTask} frames a task in the rows`)
  })
})
