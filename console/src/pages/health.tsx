import { describe, getJson, send } from '../api.ts'
import { Notice, time, usePoll } from '../ui.tsx'
import { NotAdmin } from './push.tsx'

interface Replica {
  replica_id: string
  store: string
  started_at: string
  running_tasks: number
  open_streams: number
  seenAt: number
}

/** Every replica that answered this tab, by id: behind a load balancer each poll may reach another one. */
const replicas = new Map<string, Replica>()

/** Sample sums per metric name (labels folded), and per `name{state="…"}` for the outbox. */
const parseMetrics = (text: string): Map<string, number> => {
  const sums = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = /^([a-z_:][a-z0-9_:]*)(\{[^}]*\})?\s+(\S+)/i.exec(line)
    if (!match) continue
    const value = Number(match[3])
    if (!Number.isFinite(value)) continue
    const add = (key: string) => sums.set(key, (sums.get(key) ?? 0) + value)
    add(match[1]!)
    const state = /state="([^"]+)"/.exec(match[2] ?? '')
    if (state) add(`${match[1]}{${state[1]}}`)
  }
  return sums
}

const KEY_METRICS: [string, string][] = [
  ['switchboard_tasks_open', 'open tasks'],
  ['switchboard_tasks_created_total', 'tasks created'],
  ['switchboard_tasks_finished_total', 'tasks finished'],
  ['switchboard_open_streams', 'open streams'],
  ['switchboard_http_requests_total', 'HTTP requests'],
  ['switchboard_handler_errors_total', 'handler errors'],
  ['switchboard_push_deliveries_total', 'push delivery attempts'],
  ['switchboard_push_oldest_pending_age_seconds', 'oldest pending push (s)'],
  ['switchboard_lease_takeovers_total', 'lease takeovers'],
]

const settle = <T,>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  )

const load = async () => {
  const ready = await fetch('/readyz').then(
    (r) => r.json() as Promise<{ status: string; error?: { message: string } }>,
  )
  const replica = await settle(getJson<Omit<Replica, 'seenAt'>>('/admin/replica'))
  if ('value' in replica) replicas.set(replica.value.replica_id, { ...replica.value, seenAt: Date.now() })
  const stats = await settle(getJson<{ counts: Record<string, number> }>('/admin/deliveries/stats'))
  const metrics = await settle(
    send('/metrics')
      .then((r) => r.text())
      .then(parseMetrics),
  )
  return { ready, replica, stats, metrics }
}

export const HealthPage = () => {
  const { value, error } = usePoll(load, 2000, [])
  if (error && !value) return <Notice kind="error">{describe(error)}</Notice>
  if (!value) return <p>Loading…</p>
  const { ready, replica, stats, metrics } = value
  return (
    <>
      <h1>Health</h1>
      <section aria-labelledby="store">
        <h2 id="store">Store</h2>
        <p>
          <span class={`state state-${ready.status === 'ready' ? 'completed' : 'failed'}`}>
            {ready.status}
          </span>{' '}
          {ready.error?.message}
        </p>
      </section>
      <section aria-labelledby="replicas">
        <h2 id="replicas">Replicas</h2>
        {'error' in replica ? (
          <NotAdmin error={replica.error} what="The replica view" />
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Replica</th>
                <th scope="col">Store</th>
                <th scope="col">Started</th>
                <th scope="col">Running tasks</th>
                <th scope="col">Open streams</th>
                <th scope="col">Last answered</th>
              </tr>
            </thead>
            <tbody>
              {[...replicas.values()].map((r) => (
                <tr>
                  <td>
                    <code>{r.replica_id}</code>
                  </td>
                  <td>{r.store}</td>
                  <td>{time(r.started_at)}</td>
                  <td>{r.running_tasks}</td>
                  <td>{r.open_streams}</td>
                  <td>{new Date(r.seenAt).toLocaleTimeString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="outbox">
        <h2 id="outbox">Push outbox</h2>
        {'error' in stats ? (
          <NotAdmin error={stats.error} what="The push outbox" />
        ) : (
          <p>
            backlog {stats.value.counts.pending ?? 0} pending, {stats.value.counts.dead ?? 0} dead,{' '}
            {stats.value.counts.delivered ?? 0} delivered
          </p>
        )}
      </section>
      <section aria-labelledby="metrics">
        <h2 id="metrics">Key metrics</h2>
        {'error' in metrics ? (
          <NotAdmin error={metrics.error} what="/metrics" />
        ) : (
          <dl class="facts">
            {KEY_METRICS.map(([name, label]) => (
              <>
                <dt>{label}</dt>
                <dd>{metrics.value.get(name) ?? '—'}</dd>
              </>
            ))}
          </dl>
        )}
      </section>
    </>
  )
}
