import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  aggregate,
  loadOfRun,
  median,
  NOISE_LIMIT,
  pairedRatio,
  type RunRecord,
  spreadOf,
} from '../../bench/harness/aggregate.ts'
import type { Target } from '../../bench/protocol.ts'
import { measurement } from './measurement.ts'

const rounds = (target: Target, ops: number[], load = 1): RunRecord[] =>
  ops.map((opsPerSec, i) => ({
    scenario: 'send',
    binding: 'jsonrpc',
    target,
    round: i + 1,
    measurement: measurement(opsPerSec),
    load: load + i,
  }))

describe('bench aggregation', () => {
  it('the median of an odd and an even count', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([4, 1, 3, 2]), 2.5)
    assert.equal(median([]), 0)
  })

  it('the spread is (max − min) / median, 0 for one round', () => {
    assert.equal(spreadOf([100, 110, 90]), 0.2)
    assert.equal(spreadOf([100]), 0)
  })

  it('a row whose rounds disagree by more than 25 % is noisy; one at 25 % is not', () => {
    const [steady] = aggregate(rounds('sdk-memory', [100, 125, 110]))
    assert.ok(Math.abs(steady!.spread - 0.25 / 1.1) < 1e-9)
    assert.equal(steady!.noisy, false)
    const [edge] = aggregate(rounds('sdk-memory', [100, 125, 100]))
    assert.equal(edge!.spread, NOISE_LIMIT)
    assert.equal(edge!.noisy, false)
    const [noisy] = aggregate(rounds('sdk-memory', [100, 130, 100]))
    assert.equal(noisy!.noisy, true)
  })

  it('the rounds’ load averages are kept as their lowest and highest', () => {
    const [row] = aggregate(rounds('sdk-memory', [100, 100, 100], 2))
    assert.deepEqual(row!.load, [2, 4])
    assert.deepEqual(loadOfRun([row!]), [2, 3, 4])
  })

  it('a published ratio is the median of the per-round ratios, paired by round', () => {
    const results = aggregate([
      ...rounds('switchboard-sqlite', [300, 200, 330]),
      ...rounds('sdk-memory', [100, 100, 110]),
    ])
    const ours = results.find((r) => r.target === 'switchboard-sqlite')!
    const theirs = results.find((r) => r.target === 'sdk-memory')!
    // Per round: 3, 2, 3; the ratio of the medians would be 300 / 100 = 3 too, but the low is 2.
    assert.deepEqual(pairedRatio(ours, theirs, 'opsPerSec'), { median: 3, low: 2, high: 3, rounds: 3 })
  })

  it('a failed round pairs nothing: the other rounds keep their partners', () => {
    const ours = rounds('switchboard-sqlite', [300, 200, 330])
    ours[1] = { ...ours[1]!, failure: 'server crashed' }
    delete ours[1].measurement
    const results = aggregate([...ours, ...rounds('sdk-memory', [100, 50, 110])])
    const paired = pairedRatio(results[0]!, results[1]!, 'opsPerSec')
    assert.deepEqual(paired, { median: 3, low: 3, high: 3, rounds: 2 })
    assert.deepEqual(results[0]!.failures, ['server crashed'])
  })
})
