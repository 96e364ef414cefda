import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Counter, Histogram, Registry } from 'prom-client'
import { SeriesCounter, SeriesHistogram } from '../../src/observability/metric-series.ts'

const BUCKETS = [0.001, 0.01, 0.1, 1, 10]

/** A fixed pseudo-random sequence (no Math.random: a failure must reproduce). */
const sequence = (length: number): number[] => {
  let state = 7
  return Array.from({ length }, () => {
    state = (state * 48271) % 2147483647
    return state / 2147483647
  })
}

// Label values a real request carries, and ones the exposition must escape.
const ROUTES = ['/a2a/jsonrpc', '/tasks/:id', 'quote"d', 'back\\slash', 'new\nline']
const STATUSES = ['200', '404', 500]

/** prom-client's JSON carries an empty `exemplar` on every histogram sample; these metrics keep none. */
const withoutExemplars = (json: unknown): unknown =>
  JSON.parse(JSON.stringify(json, (key, value) => (key === 'exemplar' && value == null ? undefined : value)))

/** Both registries' exposition, text and JSON, after the same updates. */
const expositions = async (
  theirs: Registry,
  ours: Registry,
): Promise<[theirs: [string, unknown], ours: [string, unknown]]> => {
  const exposition = async (registry: Registry): Promise<[string, unknown]> => [
    await registry.metrics(),
    withoutExemplars(await registry.getMetricsAsJSON()),
  ]
  return [await exposition(theirs), await exposition(ours)]
}

describe('SeriesCounter and SeriesHistogram', () => {
  it('expose exactly what prom-client exposes for the same updates, labelled and not', async () => {
    const theirs = new Registry()
    const ours = new Registry()
    const labelNames = ['method', 'route', 'status'] as const
    const counters = [
      new Counter({ name: 'requests_total', help: 'Requests.', labelNames, registers: [theirs] }),
      new SeriesCounter({ name: 'requests_total', help: 'Requests.', labelNames, registers: [ours] }),
    ]
    const histograms = [
      new Histogram({
        name: 'latency_seconds',
        help: 'Latency.',
        labelNames,
        buckets: BUCKETS,
        registers: [theirs],
      }),
      new SeriesHistogram({
        name: 'latency_seconds',
        help: 'Latency.',
        labelNames,
        buckets: BUCKETS,
        registers: [ours],
      }),
    ]
    const plainCounters = [
      new Counter({ name: 'takeovers_total', help: 'No labels.', registers: [theirs] }),
      new SeriesCounter({ name: 'takeovers_total', help: 'No labels.', registers: [ours] }),
    ]
    const plainHistograms = [
      new Histogram({ name: 'batch_events', help: 'No labels.', buckets: [1, 2, 4], registers: [theirs] }),
      new SeriesHistogram({
        name: 'batch_events',
        help: 'No labels.',
        buckets: [1, 2, 4],
        registers: [ours],
      }),
    ]
    // Before any update: the unlabelled metrics show their zero series, the labelled ones none.
    const [[theirText, theirJson], [ourText, ourJson]] = await expositions(theirs, ours)
    assert.equal(ourText, theirText)
    assert.deepEqual(ourJson, theirJson)

    const draws = sequence(3000)
    for (let i = 0; i < draws.length; i += 3) {
      const [a, b, c] = [draws[i] as number, draws[i + 1] as number, draws[i + 2] as number]
      const labels = {
        method: a < 0.5 ? 'POST' : 'GET',
        route: ROUTES[Math.floor(b * ROUTES.length)] as string,
        status: STATUSES[Math.floor(c * STATUSES.length)] as string | number,
      }
      // Values on a bucket's bound, between bounds and above the last one.
      const value = i % 7 === 0 ? (BUCKETS[i % BUCKETS.length] as number) : a * b * 30
      for (const counter of counters) counter.inc(labels, i % 5 === 0 ? 2.5 : 1)
      for (const histogram of histograms) histogram.observe(labels, value)
      if (i % 11 === 0) for (const counter of plainCounters) counter.inc()
      for (const histogram of plainHistograms) histogram.observe(Math.floor(c * 6))
    }
    const [[theirs2, theirsJson2], [ours2, oursJson2]] = await expositions(theirs, ours)
    assert.match(ours2, /latency_seconds_bucket\{le="\+Inf",method="POST",route="quote\\"d",status="500"\}/)
    assert.equal(ours2, theirs2)
    assert.deepEqual(oursJson2, theirsJson2)

    for (const metric of [...counters, ...histograms]) metric.reset()
    const [[theirs3], [ours3]] = await expositions(theirs, ours)
    assert.equal(ours3, theirs3)
  })

  it('refuse what prom-client refuses, leaving the series as they were', async () => {
    const registry = new Registry()
    const counter = new SeriesCounter({
      name: 'c_total',
      help: 'c',
      labelNames: ['code'],
      registers: [registry],
    })
    const histogram = new SeriesHistogram({ name: 'h', help: 'h', buckets: [1], registers: [registry] })
    counter.inc({ code: 'x' })
    histogram.observe(0.5)
    const before = await registry.metrics()
    assert.throws(() => counter.inc({ code: 'x' }, -1), /finite amount/)
    assert.throws(() => counter.inc({ code: 'x' }, Number.NaN), /finite amount/)
    assert.throws(() => histogram.observe(Number.POSITIVE_INFINITY), /finite numbers/)
    assert.throws(() => histogram.observe(Number.NaN), /finite numbers/)
    assert.equal(await registry.metrics(), before)
    // One name per registry, as for prom-client's own metrics.
    assert.throws(
      () => new SeriesCounter({ name: 'c_total', help: 'again', registers: [registry] }),
      /already/,
    )
  })
})
