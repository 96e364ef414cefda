import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import { makePlan } from '../../bench/harness/plan.ts'
import { scenarioDescription } from '../../bench/harness/report.ts'

const run = promisify(execFile)

/**
 * `--stream-artifacts` and `bench/store-cost.ts` split a stream's cost into its request and its
 * events (bench/README.md): the goals stay set for the default stream.
 */
describe("the stream's artifact count", () => {
  it('is 10 unless asked, and the stream table says how many', () => {
    assert.equal(makePlan({ quick: false }).streamArtifacts, 10)
    assert.equal(makePlan({ quick: true, streamArtifacts: 0 }).streamArtifacts, 0)
    assert.equal(
      scenarioDescription('stream', { streamArtifacts: 30 }),
      'SendStreamingMessage, 30 artifact updates, read to COMPLETED',
    )
    const recordedBefore = {} as { streamArtifacts: number }
    assert.match(scenarioDescription('stream', recordedBefore), /, 10 artifact updates,/)
  })

  it('is refused by the full run unless it publishes nothing', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--stream-artifacts', '3', '--only', 'get']),
      (error: { stderr: string }) => /--stream-artifacts other than 10 needs --no-readme/.test(error.stderr),
    )
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--stream-artifacts', '1.5', '--no-readme']),
      (error: { stderr: string }) => /--stream-artifacts must be an integer from 0 to 100/.test(error.stderr),
    )
  })

  it("reports the store's CPU per task for each artifact count (bench/store-cost.ts)", async () => {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'bench/store-cost.ts',
      '--artifacts',
      '0,5',
      '--tasks',
      '200',
      '--rounds',
      '1',
    ])
    const median = (n: number): number => {
      const match = new RegExp(`^${n} artifacts: median ([\\d.]+) µs of CPU per task$`, 'm').exec(stdout)
      assert.ok(match, `no median for ${n} artifacts in:\n${stdout}`)
      return Number(match[1])
    }
    assert.ok(median(0) > 0)
    assert.ok(median(5) > 0)
  })
})
