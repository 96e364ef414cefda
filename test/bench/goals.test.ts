import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SubscriberResult } from '../../bench/client/subscribers.ts'
import { type Aggregate, aggregate, type RunRecord } from '../../bench/harness/aggregate.ts'
import { judgeGoals, renderGoals } from '../../bench/harness/goals.ts'
import type { Target } from '../../bench/protocol.ts'
import { measurement } from './measurement.ts'

type Row = { scenario: RunRecord['scenario']; binding: RunRecord['binding']; target: Target }

/** One row's rounds: each ops/s given, CPU per op fixed. */
const row = (where: Row, ops: number[], cpu = 250, errors = 0): RunRecord[] =>
  ops.map((opsPerSec, i) => ({ ...where, round: i + 1, measurement: measurement(opsPerSec, cpu, errors) }))

const held = (target: Target, binding: 'jsonrpc' | 'rest', kb: number[]): RunRecord[] =>
  kb.map((kbPerStream, i) => ({
    scenario: 'subscribers',
    binding,
    target,
    round: i + 1,
    subscribers: {
      baselineRssMb: 100,
      levels: [{ streams: 10_000, rssMb: 200, kbPerStream }],
      opensPerSec: 1000,
      cpuMsPer1kOpens: 100,
      closedOk: 10_000,
      errors: 0,
      fanoutMs: 10,
    } satisfies SubscriberResult,
  }))

const goal = (results: Aggregate[], text: string) => {
  const found = judgeGoals(results).find((g) => g.goal.startsWith(text))
  assert.ok(found, `no goal "${text}"`)
  return found
}

const send = (target: Target): Row => ({ scenario: 'send', binding: 'jsonrpc', target })

/** A send row over HTTP+JSON with each round's ops/s and database CPU per 1,000 ops. */
const withDb = (target: Target, ops: number[], db: number[]): RunRecord[] => {
  const records = row({ scenario: 'send', binding: 'rest', target }, ops)
  records.forEach((r, i) => {
    r.measurement!.dbCpuMsPer1k = db[i]!
  })
  return records
}

describe('the goals table', () => {
  it('lists the issue’s goals, each once, in order', () => {
    const goals = judgeGoals([]).map((g) => g.goal)
    assert.equal(goals.length, 12 + 2 + 4 + 4 + 2 + 2)
    assert.equal(new Set(goals).size, goals.length)
    assert.match(goals[0]!, /^send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory throughput$/)
    assert.match(goals[1]!, /^send JSON-RPC: Switchboard SQLite ≥ 10× SDK SQLite throughput$/)
    assert.ok(goals.includes('send-async HTTP+JSON: Switchboard SQLite ≥ 10× SDK SQLite throughput'))
    assert.ok(goals.includes('stream HTTP+JSON: Switchboard PostgreSQL ≥ 3× SDK SQLite throughput'))
    assert.ok(goals.includes('send HTTP+JSON: Switchboard SQLite server CPU ≤ 300 ms per 1,000'))
    assert.ok(
      goals.includes("stream JSON-RPC: Switchboard PostgreSQL database CPU ≤ 1.5× the anchor lifecycle's"),
    )
    assert.ok(goals.some((g) => /^memory per open stream \(JSON-RPC\).*within 2 KB/.test(g)))
    assert.ok(goals.includes('tokens HTTP+JSON: Switchboard SQLite ≥ 3× SDK in-memory events/s'))
    assert.ok(judgeGoals([]).every((g) => g.status === 'not measured'))
  })

  it('met at the target, not met under it: the median of the paired rounds decides', () => {
    const met = aggregate([
      ...row(send('switchboard-sqlite'), [300, 310, 290]),
      ...row(send('sdk-memory'), [100, 100, 100]),
    ])
    const g = goal(met, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory')
    assert.equal(g.status, 'met')
    assert.match(g.value, /^3\.00× \(2\.90×–3\.10×\)/)
    const short = aggregate([
      ...row(send('switchboard-sqlite'), [299, 280, 310]),
      ...row(send('sdk-memory'), [100, 100, 100]),
    ])
    assert.equal(goal(short, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory').status, 'not met')
  })

  it('a noisy row on either side makes the goal noisy, whatever the ratio', () => {
    const results = aggregate([
      ...row(send('switchboard-sqlite'), [900, 900, 900]),
      ...row(send('sdk-memory'), [100, 140, 100]),
    ])
    assert.equal(goal(results, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory').status, 'noisy')
  })

  it('a noisy goal says so when every round falls short, or every round meets it, and not when they split', () => {
    const noisyWith = (ours: number[]) =>
      goal(
        aggregate([...row(send('switchboard-sqlite'), ours), ...row(send('sdk-memory'), [100, 140, 100])]),
        'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory',
      )
    const short = noisyWith([200, 250, 200])
    assert.equal(short.status, 'noisy')
    assert.equal(short.rounds, 'no round met it')
    assert.match(renderGoals([short]), /\| \*\*noisy\*\*: no round met it \|$/)
    assert.equal(noisyWith([450, 600, 450]).rounds, 'every round met it')
    // Rounds of 2.5×, 3.57× and 3×: one short, two past it.
    const split = noisyWith([250, 500, 300])
    assert.equal(split.status, 'noisy')
    assert.equal(split.rounds, undefined)
    assert.match(renderGoals([split]), /\| \*\*noisy\*\* \|$/)
  })

  it('a noisy server CPU goal reads its rounds the same way, lower being better', () => {
    const cpu = (ms: number[]) =>
      goal(
        aggregate(
          ms.map((m, i) => ({
            ...send('switchboard-sqlite'),
            round: i + 1,
            measurement: measurement(1000 + i * 300, m),
          })),
        ),
        'send JSON-RPC: Switchboard SQLite server CPU ≤ 300',
      )
    assert.equal(cpu([250, 280, 290]).status, 'noisy')
    assert.equal(cpu([250, 280, 290]).rounds, 'every round met it')
    assert.equal(cpu([310, 340, 400]).rounds, 'no round met it')
    assert.equal(cpu([250, 340, 400]).rounds, undefined)
  })

  it('fewer than 3 rounds judge nothing; an error in any round is not met', () => {
    const one = aggregate([...row(send('switchboard-sqlite'), [900]), ...row(send('sdk-memory'), [100])])
    assert.equal(goal(one, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory').status, 'too few rounds')
    const wrong = aggregate([
      ...row(send('switchboard-sqlite'), [900, 900, 900], 250, 1),
      ...row(send('sdk-memory'), [100, 100, 100]),
    ])
    assert.equal(goal(wrong, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory').status, 'not met')
  })

  it('server CPU per send: at most 300 ms per 1,000', () => {
    const under = aggregate(row(send('switchboard-sqlite'), [900, 900, 900], 300))
    assert.equal(goal(under, 'send JSON-RPC: Switchboard SQLite server CPU').status, 'met')
    const over = aggregate(row(send('switchboard-sqlite'), [900, 900, 900], 301))
    assert.equal(goal(over, 'send JSON-RPC: Switchboard SQLite server CPU').status, 'not met')
  })

  it('PostgreSQL ÷ SDK SQLite shows the database CPU per operation', () => {
    const pg = row({ scenario: 'stream', binding: 'rest', target: 'switchboard-pg' }, [300, 300, 300])
    for (const r of pg) r.measurement!.dbCpuMsPer1k = 1234
    const results = aggregate([
      ...pg,
      ...row({ scenario: 'stream', binding: 'rest', target: 'sdk-sqlite' }, [100, 100, 100]),
    ])
    const g = goal(results, 'stream HTTP+JSON: Switchboard PostgreSQL ≥ 3× SDK SQLite')
    assert.equal(g.status, 'met')
    assert.match(g.value, /database CPU 1,234 ms \/ 1k ops/)
  })

  it('PostgreSQL database CPU: at most 1.5× the anchor lifecycle’s, paired round by round', () => {
    const steady = [300, 300, 300]
    const judged = (ours: number[], anchor: number[]) =>
      goal(
        aggregate([
          ...withDb('switchboard-pg', steady, ours),
          ...withDb('pg-lifecycle-floor', steady, anchor),
        ]),
        'send HTTP+JSON: Switchboard PostgreSQL database CPU',
      )
    const met = judged([600, 450, 300], [400, 300, 200])
    assert.equal(met.status, 'met')
    assert.equal(met.value, '1.50× (1.50×–1.50×): 450 vs 300 ms / 1k ops')
    assert.equal(judged([610, 460, 310], [400, 300, 200]).status, 'not met')
    // The anchor unmeasured (PostgreSQL unreachable, or a partial run): nothing is judged.
    assert.equal(
      goal(
        aggregate(withDb('switchboard-pg', steady, [1, 1, 1])),
        'send HTTP+JSON: Switchboard PostgreSQL database CPU',
      ).status,
      'not measured',
    )
  })

  it('PostgreSQL rows show the PostgreSQL store floor’s figure, and leave the status to our own rows', () => {
    const results = aggregate([
      ...withDb('switchboard-pg', [250, 250, 250], [220, 200, 180]),
      ...withDb('pg-store-floor', [380, 400, 420], [200, 180, 160]),
      ...withDb('pg-lifecycle-floor', [700, 700, 700], [100, 90, 80]),
      ...row({ scenario: 'send', binding: 'rest', target: 'sdk-sqlite' }, [100, 100, 100]),
    ])
    const database = goal(results, 'send HTTP+JSON: Switchboard PostgreSQL database CPU')
    assert.equal(database.status, 'not met')
    assert.equal(database.storeFloor, '2.00× (2.00×–2.00×): 180 vs 90 ms / 1k ops')
    assert.equal(database.floor, undefined)
    const throughput = goal(results, 'send HTTP+JSON: Switchboard PostgreSQL ≥ 3× SDK SQLite')
    assert.equal(throughput.status, 'not met')
    assert.match(throughput.storeFloor ?? '', /^4\.00× \(3\.80×–4\.20×\)$/)
    // Without the PostgreSQL store floor in the run, the column says so; the SQLite one is not borrowed.
    const without = aggregate([
      ...withDb('switchboard-pg', [250, 250, 250], [220, 200, 180]),
      ...row({ scenario: 'send', binding: 'rest', target: 'store-floor' }, [900, 900, 900]),
      ...row({ scenario: 'send', binding: 'rest', target: 'sdk-sqlite' }, [100, 100, 100]),
    ])
    assert.equal(goal(without, 'send HTTP+JSON: Switchboard PostgreSQL ≥ 3× SDK SQLite').storeFloor, '–')
    assert.equal(goal(without, 'send HTTP+JSON: Switchboard PostgreSQL database CPU').storeFloor, '–')
  })

  it('memory per stream: within 2 KB of the node:http floor at the most streams', () => {
    const within = aggregate([
      ...held('switchboard-sqlite', 'rest', [13, 13, 13]),
      ...held('http-floor', 'rest', [11, 11, 11]),
    ])
    const g = goal(within, 'memory per open stream (HTTP+JSON)')
    assert.equal(g.status, 'met')
    assert.match(g.value, /\+2\.0 KB/)
    const over = aggregate([
      ...held('switchboard-sqlite', 'rest', [13.2, 13.2, 13.2]),
      ...held('http-floor', 'rest', [11, 11, 11]),
    ])
    assert.equal(goal(over, 'memory per open stream (HTTP+JSON)').status, 'not met')
  })

  it('out of reach: not met, and the durable floor measured in the same run misses it too', () => {
    /** Ours at 2× the SDK in memory, beside a floor at the given ops/s. */
    const withFloor = (floorOps: number[]) =>
      goal(
        aggregate([
          ...row(send('switchboard-sqlite'), [200, 200, 200]),
          ...row(send('durable-floor'), floorOps),
          ...row(send('sdk-memory'), [100, 100, 100]),
        ]),
        'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory',
      )
    const g = withFloor([250, 260, 240])
    assert.equal(g.status, 'out of reach')
    assert.match(g.floor ?? '', /^2\.50× \(2\.40×–2\.60×\)$/)
    // The floor reaching it leaves the goal merely not met: the rest is the server's own work.
    const reached = withFloor([1500, 1500, 1500])
    assert.equal(reached.status, 'not met')
    assert.match(reached.floor ?? '', /^15\.0× /)
    // A noisy floor proves nothing.
    assert.equal(withFloor([150, 250, 200]).status, 'not met')
  })

  it('the CPU goal shows the floor’s CPU per send, and is out of reach only if the floor misses it', () => {
    const results = aggregate([
      ...row(send('switchboard-sqlite'), [900, 900, 900], 500),
      ...row(send('durable-floor'), [9000, 9000, 9000], 52),
    ])
    const g = goal(results, 'send JSON-RPC: Switchboard SQLite server CPU')
    assert.equal(g.status, 'not met')
    assert.equal(g.floor, '52 ms')
    const heavy = aggregate([
      ...row(send('switchboard-sqlite'), [900, 900, 900], 500),
      ...row(send('durable-floor'), [9000, 9000, 9000], 350),
    ])
    assert.equal(goal(heavy, 'send JSON-RPC: Switchboard SQLite server CPU').status, 'out of reach')
  })

  it('shows the store floor’s figure beside the durable floor’s, and leaves the status to the durable floor', () => {
    const results = aggregate([
      ...row(send('switchboard-sqlite'), [200, 200, 200], 500),
      ...row(send('durable-floor'), [250, 260, 240], 350),
      ...row(send('store-floor'), [400, 420, 380], 160),
      ...row(send('sdk-memory'), [100, 100, 100]),
    ])
    const throughput = goal(results, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory')
    assert.equal(throughput.status, 'out of reach')
    assert.match(throughput.storeFloor ?? '', /^4\.00× \(3\.80×–4\.20×\)$/)
    const cpu = goal(results, 'send JSON-RPC: Switchboard SQLite server CPU')
    assert.equal(cpu.storeFloor, '160 ms')
    // Without a store floor in the run, the column says so instead of borrowing another figure.
    const without = aggregate([
      ...row(send('switchboard-sqlite'), [200, 200, 200]),
      ...row(send('sdk-memory'), [100, 100, 100]),
    ])
    assert.equal(goal(without, 'send JSON-RPC: Switchboard SQLite ≥ 3× SDK in-memory').storeFloor, '–')
  })

  it('has no floor for memory or tokens, and only a store floor for PostgreSQL', () => {
    const goals = judgeGoals([])
    for (const g of goals.filter((g) => /^(tokens|memory)/.test(g.goal)))
      assert.deepEqual([g.floor, g.storeFloor], [undefined, undefined], g.goal)
    for (const g of goals.filter((g) => /PostgreSQL/.test(g.goal)))
      assert.deepEqual([g.floor, g.storeFloor], [undefined, '–'], g.goal)
    const sqlite = goals.filter(
      (g) => /^(send|send-async|stream) /.test(g.goal) && !/PostgreSQL/.test(g.goal),
    )
    assert.equal(sqlite.filter((g) => g.goal.startsWith('send-async')).length, 4)
    assert.ok(sqlite.every((g) => g.floor === '–' && g.storeFloor === '–'))
  })

  it('reads send-async against its floors: out of reach when the durable floor misses it too', () => {
    const sendAsync = (target: Target): Row => ({ scenario: 'send-async', binding: 'rest', target })
    const results = aggregate([
      ...row(sendAsync('switchboard-sqlite'), [700, 710, 690]),
      ...row(sendAsync('durable-floor'), [900, 950, 920]),
      ...row(sendAsync('store-floor'), [800, 820, 790]),
      ...row(sendAsync('sdk-sqlite'), [100, 100, 100]),
    ])
    const reached = goal(results, 'send-async HTTP+JSON: Switchboard SQLite ≥ 10× SDK SQLite')
    assert.equal(reached.status, 'out of reach')
    assert.match(reached.floor ?? '', /^9\.20× \(9\.00×–9\.50×\)$/)
    assert.match(reached.storeFloor ?? '', /^8\.00× \(7\.90×–8\.20×\)$/)
  })

  it('renders each status, bold unless met', () => {
    const text = renderGoals([
      { goal: 'a', value: '1', status: 'met' },
      { goal: 'b', value: '2', status: 'noisy' },
      { goal: 'c', value: '3', status: 'out of reach', floor: '2.50×', storeFloor: '4.00×' },
    ])
    assert.match(text, /\| a \| 1 \| {2}\| {2}\| met \|/)
    assert.match(text, /\| b \| 2 \| {2}\| {2}\| \*\*noisy\*\* \|/)
    assert.match(text, /\| c \| 3 \| 2\.50× \| 4\.00× \| \*\*out of reach\*\* \|/)
  })
})
