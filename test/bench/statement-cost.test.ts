import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `bench/statement-cost.ts`: the figures behind the `+?` rule (prepareAll, bench/README.md). */
describe('the statement cost script', () => {
  it('times every statement it names, as written and bare, on the driver this Node runs', async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/statement-cost.ts',
      '--runs',
      '1000',
    ])
    assert.match(
      stdout,
      /^Node v\d+\.\d+\.\d+, better-sqlite3(-13)? \(SQLite 3\.\d+\.\d+\), 1000 runs a round$/m,
    )
    const rows = [...stdout.matchAll(/^\| (\w+)(?: \([^)]*\))? \| (\d+) \| (\d+) \| ([\d.]+)× \|$/gm)]
    assert.deepEqual(
      rows.map(([, name]) => name),
      [
        'taskHead',
        'lastSeq',
        'taskHeadAndSnapshot',
        'eventsPage',
        'pushConfigsOf',
        'pushConfigsScoped',
        'artifact',
        'claimable',
        'claimableDeliveries',
        'expiredTasks',
      ],
    )
    for (const [, name, written, bare] of rows) assert.ok(Number(written) > 0 && Number(bare) > 0, name)
  })

  it('refuses too few runs to time', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'bench/statement-cost.ts', '--runs', '10']),
      (error: { stderr: string }) => /--runs takes an integer of at least 1000/.test(error.stderr),
    )
  })
})
