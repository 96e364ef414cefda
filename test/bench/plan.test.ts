import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FULL_WARMUP_MS, makePlan } from '../../bench/harness/plan.ts'
import { renderHeader } from '../../bench/harness/report.ts'

const machine = { nproc: 2, cpu: 'test CPU', node: process.version, loadBefore: '0', loadAfter: '0' }

describe('the plan: warm-up', () => {
  it('measures a full run after the compiler settles: 5 s of load, not the 1 s it was', () => {
    // bench/README.md, _Warm-up_: V8's compiler threads took a fifth to two thirds of a core in
    // each of the first 4–5 s of every target's load.
    assert.ok(FULL_WARMUP_MS >= 5000)
    assert.equal(makePlan({ quick: false }).warmupMs, FULL_WARMUP_MS)
    assert.equal(makePlan({ quick: false, warmupMs: 1000 }).warmupMs, 1000)
    assert.equal(makePlan({ quick: true }).warmupMs, 300)
  })

  it('says the warm-up in the published header', () => {
    const header = renderHeader({
      plan: makePlan({ quick: false }),
      machine,
      command: 'npm run bench',
      date: '2026-12-04T20:00:00.000Z',
      seconds: 1,
      notes: [],
      results: [],
    })
    assert.match(header, /3 rounds per row, median shown; 5 s warm-up, 3 s measured; 32 connections/)
  })
})
