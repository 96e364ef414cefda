import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** `bench/stream-writes.ts`: the figures behind the A2A streams' opening hold (docs/a2a.md, _Streams_). */
describe('the stream writes script', () => {
  it('loads a held and an unheld SSE server each round, alternated, and prints their medians', async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/stream-writes.ts',
      '--seconds',
      '0.3',
      '--rounds',
      '2',
      '--warmup',
      '0.1',
    ])
    const rounds = [...stdout.matchAll(/^round (\d) {2}(.+): ([\d.]+) µs server CPU a stream$/gm)]
    assert.deepEqual(
      rounds.map(([, round, name]) => `${round} ${name}`),
      ['1 held (one write)', '1 unheld (two writes)', '2 held (one write)', '2 unheld (two writes)'],
    )
    const medians = [...stdout.matchAll(/^median {2}(.+): ([\d.]+) µs server CPU a stream$/gm)]
    assert.equal(medians.length, 2)
    for (const [line, , , perStream] of rounds) assert.ok(Number(perStream) > 0, line)
    for (const [line, , perStream] of medians) assert.ok(Number(perStream) > 0, line)
  })
})
