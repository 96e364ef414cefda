import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `bench/read-cost.ts`: the figures behind the artifacts kept apart (bench/README.md). */
describe('the read cost script', () => {
  it('reads finished tasks of each count of artifacts back, checked, and prints the CPU a read', async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/read-cost.ts',
      '--artifacts',
      '0,12',
      '--tasks',
      '20',
      '--reads',
      '300',
      '--rounds',
      '2',
    ])
    const lines = [
      ...stdout.matchAll(/^(\d+) artifacts: median ([\d.]+) µs of CPU per read \(([\d.]+), ([\d.]+)\)$/gm),
    ]
    assert.deepEqual(
      lines.map(([, n]) => Number(n)),
      [0, 12],
    )
    for (const [line, , median] of lines) assert.ok(Number(median) > 0, line)
  })

  it('refuses counts it cannot use', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'bench/read-cost.ts', '--artifacts', 'x']),
      (error: { stderr: string }) => /--artifacts takes integers ≥ 0/.test(error.stderr),
    )
  })
})
