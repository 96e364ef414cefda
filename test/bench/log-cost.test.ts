import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `bench/log-cost.ts`: the figures behind the default log destination (docs/observability.md). */
describe('the log cost script', () => {
  it('measures the three destinations each round, alternated, and prints their medians', async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/log-cost.ts',
      '--lines',
      '2000',
      '--rounds',
      '2',
      '--per-turn',
      '3',
    ])
    const rounds = [...stdout.matchAll(/^round (\d) {2}(.+): ([\d.]+) µs CPU a line$/gm)]
    assert.deepEqual(
      rounds.map(([, round, name]) => `${round} ${name}`),
      [
        '1 log-lines.ts (the default)',
        '1 a write a line',
        '1 pino.destination (sonic-boom)',
        '2 log-lines.ts (the default)',
        '2 a write a line',
        '2 pino.destination (sonic-boom)',
      ],
    )
    const medians = [...stdout.matchAll(/^median {2}(.+): ([\d.]+) µs CPU a line$/gm)]
    assert.equal(medians.length, 3)
    for (const [line, , , perLine] of rounds) assert.ok(Number(perLine) > 0, line)
    for (const [line, , perLine] of medians) assert.ok(Number(perLine) > 0, line)
  })
})
