import { useState } from 'preact/hooks'
import { a2aJson, describe } from '../api.ts'
import type { DirectoryAgent } from '../main.tsx'
import { Link, Notice, StateBadge, time, usePoll } from '../ui.tsx'

interface A2aTask {
  id: string
  contextId: string
  status: { state: string; timestamp?: string }
}

interface Row extends A2aTask {
  slug: string
}

const STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'REJECTED',
]

interface Filter {
  agent: string
  state: string
  context: string
  after: string
}

/**
 * The newest tasks of each agent the filter names, by ListTasks (which the server scopes to the
 * caller): one page per agent, merged newest first. Polled, so new tasks and new states appear.
 */
const listTasks = async (agents: DirectoryAgent[], filter: Filter): Promise<Row[]> => {
  const query = new URLSearchParams({ pageSize: '50' })
  if (filter.state) query.set('status', `TASK_STATE_${filter.state}`)
  if (filter.context.trim()) query.set('contextId', filter.context.trim())
  if (filter.after) query.set('statusTimestampAfter', new Date(filter.after).toISOString())
  const chosen = agents.filter((a) => !filter.agent || a.slug === filter.agent)
  const pages = await Promise.all(
    chosen.map((agent) =>
      a2aJson<{ tasks: A2aTask[] }>(agent.slug, `/tasks?${query}`).then((page) =>
        page.tasks.map((task) => ({ ...task, slug: agent.slug })),
      ),
    ),
  )
  return pages.flat().sort((a, b) => (b.status.timestamp ?? '').localeCompare(a.status.timestamp ?? ''))
}

export const TasksPage = (props: { agents: DirectoryAgent[] }) => {
  const [filter, setFilter] = useState<Filter>({ agent: '', state: '', context: '', after: '' })
  const { value: rows, error } = usePoll(() => listTasks(props.agents, filter), 2000, [
    filter.agent,
    filter.state,
    filter.context,
    filter.after,
  ])
  const set = (key: keyof Filter) => (event: Event) =>
    setFilter({ ...filter, [key]: (event.currentTarget as HTMLInputElement).value })
  return (
    <>
      <h1>Tasks</h1>
      <form class="filters" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
        <label for="f-agent">
          Agent
          <select id="f-agent" value={filter.agent} onChange={set('agent')}>
            <option value="">all</option>
            {props.agents.map((a) => (
              <option value={a.slug}>{a.slug}</option>
            ))}
          </select>
        </label>
        <label for="f-state">
          State
          <select id="f-state" value={filter.state} onChange={set('state')}>
            <option value="">all</option>
            {STATES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label for="f-context">
          Context
          <input id="f-context" value={filter.context} onChange={set('context')} />
        </label>
        <label for="f-after">
          Updated after
          <input id="f-after" type="datetime-local" value={filter.after} onChange={set('after')} />
        </label>
      </form>
      {error ? <Notice kind="error">{describe(error)}</Notice> : null}
      {!rows ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p class="muted">No tasks that this identity may see.</p>
      ) : (
        <table class="tasks">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Agent</th>
              <th scope="col">State</th>
              <th scope="col">Context</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((task) => (
              <tr key={task.id} data-task={task.id}>
                <td>
                  <Link to={`/tasks/${encodeURIComponent(task.slug)}/${task.id}`}>
                    <code>{task.id}</code>
                  </Link>
                </td>
                <td>{task.slug}</td>
                <td>
                  <StateBadge state={task.status.state} />
                </td>
                <td>
                  <code>{task.contextId}</code>
                </td>
                <td>{time(task.status.timestamp)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
