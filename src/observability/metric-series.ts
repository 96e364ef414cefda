import type { Metric, Registry } from 'prom-client'

/** A sample's label values, by label name (numbers are written as their decimal text). */
export type LabelValues<L extends string> = Readonly<Record<L, string | number>>

interface MetricConfig<L extends string> {
  name: string
  help: string
  labelNames?: readonly L[]
  registers: readonly Registry[]
}

interface ExportedSample {
  value: number
  labels: Record<string, string | number>
  metricName?: string
  sharedLabels?: Record<string, string | number>
}

/**
 * The series of one metric, found by walking one map per label name: once a label combination
 * has been seen, an update allocates nothing (prom-client builds a key string and validates the
 * labels object on every call, which the request path pays several times per task).
 */
class SeriesIndex<L extends string, S> {
  readonly #labelNames: readonly L[]
  readonly #create: (labels: Record<string, string | number>) => S
  readonly #root = new Map<string, unknown>()
  #single: S | undefined
  readonly #list: S[] = []

  constructor(labelNames: readonly L[], create: (labels: Record<string, string | number>) => S) {
    this.#labelNames = labelNames
    this.#create = create
  }

  /**
   * Every series in the order it first appeared, the exposition's order as prom-client's. A
   * metric without labels shows its one series, at zero, before any update.
   */
  get all(): readonly S[] {
    if (this.#labelNames.length === 0) this.get(undefined)
    return this.#list
  }

  get(labels: LabelValues<L> | undefined): S {
    if (this.#single !== undefined) return this.#single
    const names = this.#labelNames
    if (names.length === 0) {
      this.#single = this.#create({})
      this.#list.push(this.#single)
      return this.#single
    }
    const values = labels as Record<string, string | number>
    let map = this.#root
    for (let i = 0; i < names.length - 1; i++) {
      const value = String(values[names[i] as string])
      let next = map.get(value) as Map<string, unknown> | undefined
      if (next === undefined) {
        next = new Map()
        map.set(value, next)
      }
      map = next
    }
    const leaf = String(values[names[names.length - 1] as string])
    let series = map.get(leaf) as S | undefined
    if (series === undefined) {
      // As first seen, as prom-client keeps them (a number stays a number in the JSON form).
      const own: Record<string, string | number> = {}
      for (const name of names) own[name] = values[name] as string | number
      series = this.#create(own)
      map.set(leaf, series)
      this.#list.push(series)
    }
    return series
  }
}

/** What the registry reads of a metric, in either form (text or JSON). */
interface ExportedMetric {
  name: string
  help: string
  type: string
  aggregator: string
  values: ExportedSample[]
}

/**
 * A metric a prom-client Registry exposes exactly as prom-client's own: it registers itself and
 * answers the same get() (the registry's types name prom-client's classes, hence the cast).
 */
abstract class SeriesMetric<L extends string, S> {
  readonly name: string
  readonly help: string
  abstract readonly type: 'counter' | 'histogram'
  readonly aggregator = 'sum'
  readonly #labelNames: readonly L[]
  protected series: SeriesIndex<L, S>

  constructor(config: MetricConfig<L>) {
    this.name = config.name
    this.help = config.help
    this.#labelNames = config.labelNames ?? []
    this.series = new SeriesIndex(this.#labelNames, (labels) => this.newSeries(labels))
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric)
  }

  /** A label combination's series before its first update. */
  protected abstract newSeries(labels: Record<string, string | number>): S

  protected exported(values: ExportedSample[]): ExportedMetric {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    this.series = new SeriesIndex(this.#labelNames, (labels) => this.newSeries(labels))
  }
}

interface CounterSeries {
  labels: Record<string, string | number>
  value: number
}

/** A counter exposed as prom-client's Counter, with a cheaper update. */
export class SeriesCounter<L extends string = never> extends SeriesMetric<L, CounterSeries> {
  readonly type = 'counter'

  /** Adds `value` (default 1) to the series of `labels` (none for a metric without labels). */
  inc(labels?: LabelValues<L>, value = 1): void {
    if (!(value >= 0) || value === Number.POSITIVE_INFINITY) {
      throw new TypeError(`a counter only grows by a finite amount, not ${value}`)
    }
    this.series.get(labels).value += value
  }

  protected newSeries(labels: Record<string, string | number>): CounterSeries {
    return { labels, value: 0 }
  }

  async get(): Promise<ExportedMetric> {
    return this.exported(
      this.series.all.map((series) => ({ value: series.value, labels: { ...series.labels } })),
    )
  }
}

interface HistogramSeries {
  labels: Record<string, string | number>
  /** Observations per bucket, not cumulative (the exposition adds them up). */
  buckets: Float64Array
  sum: number
  count: number
}

/** A histogram exposed as prom-client's Histogram, with a cheaper update. */
export class SeriesHistogram<L extends string = never> extends SeriesMetric<L, HistogramSeries> {
  readonly type = 'histogram'
  readonly #bounds: readonly number[]

  constructor(config: MetricConfig<L> & { buckets: readonly number[] }) {
    super(config)
    this.#bounds = [...config.buckets].sort((a, b) => a - b)
  }

  /** Records one observation in the series of `labels`; a metric without labels takes the value alone. */
  observe(labels: LabelValues<L>, value: number): void
  observe(value: number): void
  observe(labelsOrValue: LabelValues<L> | number, value?: number): void {
    const observed = typeof labelsOrValue === 'number' ? labelsOrValue : (value as number)
    if (!Number.isFinite(observed))
      throw new TypeError(`a histogram observes finite numbers, not ${observed}`)
    const series = this.series.get(typeof labelsOrValue === 'number' ? undefined : labelsOrValue)
    const bounds = this.#bounds
    for (let i = 0; i < bounds.length; i++) {
      if (observed <= (bounds[i] as number)) {
        ;(series.buckets[i] as number) += 1
        break
      }
    }
    series.sum += observed
    series.count += 1
  }

  /** What the registry's text exposition reads: bucket labels apart from the series' own. */
  async getForPromString(): Promise<ExportedMetric> {
    const bucketName = `${this.name}_bucket`
    const values: ExportedSample[] = []
    for (const series of this.series.all) {
      const sharedLabels = series.labels
      let cumulative = 0
      this.#bounds.forEach((le, i) => {
        cumulative += series.buckets[i] as number
        values.push({ value: cumulative, labels: { le }, metricName: bucketName, sharedLabels })
      })
      values.push(
        { value: series.count, labels: { le: '+Inf' }, metricName: bucketName, sharedLabels },
        { value: series.sum, labels: {}, metricName: `${this.name}_sum`, sharedLabels },
        { value: series.count, labels: {}, metricName: `${this.name}_count`, sharedLabels },
      )
    }
    return this.exported(values)
  }

  /** The registry's JSON form: each sample's labels in one object. */
  async get(): Promise<ExportedMetric> {
    const exported = await this.getForPromString()
    const values = exported.values.map(({ sharedLabels, labels, ...sample }) => ({
      ...sample,
      labels: { ...labels, ...sharedLabels },
    }))
    return { ...exported, values }
  }

  protected newSeries(labels: Record<string, string | number>): HistogramSeries {
    return { labels, buckets: new Float64Array(this.#bounds.length), sum: 0, count: 0 }
  }
}
