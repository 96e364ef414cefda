import { useState } from 'preact/hooks'
import { ApiError, describe, getJson, send } from '../api.ts'
import { Notice, time, usePoll } from '../ui.tsx'

interface Delivery {
  id: string
  task_id: string
  url: string
  kind: string
  event: string
  state: 'pending' | 'delivered' | 'dead'
  attempts: number
  last_error?: string
  next_attempt_at: string
}

/** What an identity without the admin scope is told instead of an error. */
export const NotAdmin = (props: { error: unknown; what: string }) =>
  props.error instanceof ApiError && (props.error.status === 403 || props.error.status === 401) ? (
    <Notice>
      {props.what} is for operators: this identity has neither the admin scope nor the admin token (
      {props.error.message}).
    </Notice>
  ) : (
    <Notice kind="error">{describe(props.error)}</Notice>
  )

const load = async () => {
  const [stats, pending, dead, delivered] = await Promise.all([
    getJson<{ counts: Record<string, number> }>('/admin/deliveries/stats'),
    ...['pending', 'dead', 'delivered'].map((state) =>
      getJson<{ deliveries: Delivery[] }>(`/admin/deliveries?state=${state}&limit=500`).then(
        (p) => p.deliveries,
      ),
    ),
  ])
  return { counts: stats.counts, deliveries: [...pending!, ...dead!, ...delivered!], dead: dead! }
}

const retry = (id: string) => send(`/admin/deliveries/${id}/retry`, { method: 'POST' })

export const PushPage = () => {
  const { value, error, refresh } = usePoll(load, 2000, [])
  const [actionError, setActionError] = useState<string | undefined>(undefined)
  if (error && !value) return <NotAdmin error={error} what="The push outbox" />
  if (!value) return <p>Loading…</p>
  const endpoints = new Map<string, Record<string, number>>()
  for (const d of value.deliveries) {
    const counts = endpoints.get(d.url) ?? { pending: 0, delivered: 0, dead: 0 }
    counts[d.state] = (counts[d.state] ?? 0) + 1
    endpoints.set(d.url, counts)
  }
  const run = (work: Promise<unknown>) => {
    setActionError(undefined)
    work.then(refresh, (failure: unknown) => setActionError(describe(failure)))
  }
  return (
    <>
      <h1>Push deliveries</h1>
      <p>
        Outbox: {value.counts.pending ?? 0} pending, {value.counts.delivered ?? 0} delivered,{' '}
        {value.counts.dead ?? 0} dead.
      </p>
      {actionError && <Notice kind="error">{actionError}</Notice>}
      <h2>Per endpoint</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Pending</th>
            <th scope="col">Delivered</th>
            <th scope="col">Dead</th>
          </tr>
        </thead>
        <tbody>
          {[...endpoints].map(([url, counts]) => (
            <tr>
              <td>
                <code>{url}</code>
              </td>
              <td>{counts.pending}</td>
              <td>{counts.delivered}</td>
              <td>{counts.dead}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Dead letters</h2>
      {value.dead.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <>
          <button type="button" onClick={() => run(Promise.all(value.dead.map((d) => retry(d.id))))}>
            Retry all dead letters
          </button>
          <table class="dead">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Event</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {value.dead.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <td>
                    <code>{d.task_id}</code>
                  </td>
                  <td>
                    <code>{d.url}</code>
                  </td>
                  <td>{d.event}</td>
                  <td>{d.attempts}</td>
                  <td class="error-text">{d.last_error ?? '—'}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => run(retry(d.id))}
                      aria-label={`Retry delivery ${d.id}`}
                    >
                      Retry
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <p class="muted">
        Next attempts: {time(value.deliveries.find((d) => d.state === 'pending')?.next_attempt_at)}
      </p>
    </>
  )
}
