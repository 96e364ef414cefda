import { Gauge, Registry } from 'prom-client'
import { SeriesCounter, SeriesHistogram } from './metric-series.ts'

/** Seconds: from a fast in-memory task to a long-running agent. */
const TASK_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600]
/** Seconds: HTTP handlers and store commits. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** Events per append. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128]

/** Where the scrape-time gauges read from (the store, not a copy kept in step). */
export interface MetricsSources {
  /** The push outbox (the store's countDeliveries and listDeliveries). */
  store: {
    countDeliveries(): Promise<Record<string, number>>
    listDeliveries(query: { state: 'pending'; limit: number }): Promise<readonly { createdAt: string }[]>
  }
  /** Open tasks per agent and state as this replica saw them (see OpenTaskTally). */
  openTasks: () => Iterable<{ agent: string; state: 'waiting' | 'running'; count: number }>
  /** Server-sent event streams open now, by dialect. */
  openStreams: () => ReadonlyMap<string, number>
}

/**
 * Every Switchboard metric, in a registry of its own: two servers in one process (tests, an
 * embedding application) never share or collide on the global prom-client registry.
 */
export class SwitchboardMetrics {
  readonly registry = new Registry()
  readonly tasksCreated: SeriesCounter<'agent'>
  readonly tasksFinished: SeriesCounter<'agent' | 'state'>
  readonly taskDuration: SeriesHistogram<'agent' | 'state'>
  readonly taskFirstEvent: SeriesHistogram<'agent'>
  readonly httpRequests: SeriesCounter<'method' | 'route' | 'status'>
  readonly httpDuration: SeriesHistogram<'method' | 'route' | 'status'>
  readonly handlerErrors: SeriesCounter<'code'>
  readonly pushDeliveries: SeriesCounter<'outcome'>
  readonly storeCommit: SeriesHistogram<'operation'>
  readonly storeBatch: SeriesHistogram
  readonly leaseTakeovers: SeriesCounter
  readonly taskResumes: SeriesCounter<'reason'>

  constructor(sources: MetricsSources) {
    const registers = [this.registry]
    this.tasksCreated = new SeriesCounter({
      name: 'switchboard_tasks_created_total',
      help: 'Tasks created, by agent.',
      labelNames: ['agent'],
      registers,
    })
    this.tasksFinished = new SeriesCounter({
      name: 'switchboard_tasks_finished_total',
      help: 'Tasks that reached a terminal state, by agent and that state.',
      labelNames: ['agent', 'state'],
      registers,
    })
    this.taskDuration = new SeriesHistogram({
      name: 'switchboard_task_duration_seconds',
      help: 'From task creation to its terminal state.',
      labelNames: ['agent', 'state'],
      buckets: TASK_BUCKETS,
      registers,
    })
    this.taskFirstEvent = new SeriesHistogram({
      name: 'switchboard_task_time_to_first_event_seconds',
      help: 'From task creation to the first event written after it (the run starting to report).',
      labelNames: ['agent'],
      buckets: TASK_BUCKETS,
      registers,
    })
    this.httpRequests = new SeriesCounter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    })
    this.httpDuration = new SeriesHistogram({
      name: 'switchboard_http_request_duration_seconds',
      help: 'HTTP request latency (to the end of the response; a stream counts until it closes).',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    new Gauge({
      name: 'switchboard_open_streams',
      help: 'Server-sent event streams open now, by dialect.',
      labelNames: ['dialect'],
      registers,
      collect() {
        this.reset()
        for (const [dialect, count] of sources.openStreams()) this.set({ dialect }, count)
      },
    })
    this.handlerErrors = new SeriesCounter({
      name: 'switchboard_handler_errors_total',
      help: 'Requests answered with an error, by Switchboard error code.',
      labelNames: ['code'],
      registers,
    })
    this.pushDeliveries = new SeriesCounter({
      name: 'switchboard_push_deliveries_total',
      help: 'Push delivery attempts settled, by outcome (delivered, retry, dead).',
      labelNames: ['outcome'],
      registers,
    })
    new Gauge({
      name: 'switchboard_push_outbox',
      help: 'Push deliveries in the outbox, by state (read from the store at scrape time).',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await sources.store.countDeliveries()
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count)
      },
    })
    new Gauge({
      name: 'switchboard_push_oldest_pending_age_seconds',
      help: 'Age of the oldest pending push delivery (0 when none is pending).',
      registers,
      async collect() {
        const pending = await sources.store.listDeliveries({ state: 'pending', limit: OLDEST_SCAN })
        const oldest = Math.min(...pending.map((delivery) => Date.parse(delivery.createdAt)))
        this.set(pending.length === 0 ? 0 : Math.max(0, (Date.now() - oldest) / 1000))
      },
    })
    this.storeCommit = new SeriesHistogram({
      name: 'switchboard_store_commit_duration_seconds',
      help: 'Store write latency, by operation (create, append).',
      labelNames: ['operation'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.storeBatch = new SeriesHistogram({
      name: 'switchboard_store_commit_events',
      help: 'Events written per append.',
      buckets: BATCH_BUCKETS,
      registers,
    })
    new Gauge({
      name: 'switchboard_tasks_open',
      help: 'Open tasks by agent and state (waiting: submitted; running: working), as this replica saw them.',
      labelNames: ['agent', 'state'],
      registers,
      collect() {
        this.reset()
        for (const { agent, state, count } of sources.openTasks()) this.set({ agent, state }, count)
      },
    })
    this.leaseTakeovers = new SeriesCounter({
      name: 'switchboard_lease_takeovers_total',
      help: 'Tasks this replica claimed from a runner whose lease had expired.',
      registers,
    })
    this.taskResumes = new SeriesCounter({
      name: 'switchboard_task_resumes_total',
      help: 'Handler runs this replica resumed after the previous run stopped unfinished, by reason (restart, takeover).',
      labelNames: ['reason'],
      registers,
    })
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}

/** How many pending deliveries the oldest-age gauge looks at (the outbox lists oldest first). */
const OLDEST_SCAN = 100
