import { a2aJson, clawpedia, describe, getJson } from '../api.ts'
import type { DirectoryAgent } from '../main.tsx'
import { navigate } from '../router.ts'
import { type JsonSchema, SchemaForm } from '../schema-form.tsx'
import { Json, Link, Notice, Raw, usePoll } from '../ui.tsx'

interface ClawpediaCard {
  display_name: string
  description: string
  capabilities: string[]
  input_schema: JsonSchema
  output_schema?: JsonSchema
}

interface A2aCard {
  name: string
  description: string
  version: string
  supportedInterfaces?: { url: string; protocolBinding: string; protocolVersion?: string }[]
  capabilities?: Record<string, unknown>
  skills?: { id: string; name: string; description: string; tags?: string[]; examples?: string[] }[]
}

/** Waiting: queued or held for an answer; running: WORKING; finished: the rest of the total. */
const WAITING = ['TASK_STATE_SUBMITTED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']

interface Counts {
  waiting: number
  running: number
  finished: number
}

/**
 * Counts by ListTasks' totalSize, as the operator's credential sees them: its own tasks, or its
 * tenant's with tasks:read:tenant. One page of one task per state asked.
 */
const countsOf = async (slug: string): Promise<Counts> => {
  const total = (status?: string) =>
    a2aJson<{ totalSize: number }>(slug, `/tasks?pageSize=1${status ? `&status=${status}` : ''}`).then(
      (page) => page.totalSize,
    )
  const [all, running, ...waiting] = await Promise.all([
    total(),
    total('TASK_STATE_WORKING'),
    ...WAITING.map(total),
  ])
  const waitingSum = waiting.reduce((a, b) => a + b, 0)
  return { waiting: waitingSum, running, finished: all - running - waitingSum }
}

/**
 * Five requests per agent each time: every 5 s keeps a page of four agents at 240 requests a
 * minute, within the default rate limit of an exposed server (600) beside the other pages.
 */
const COUNTS_EVERY_MS = 5000

const CountsLine = (props: { slug: string }) => {
  const { value, error } = usePoll(() => countsOf(props.slug), COUNTS_EVERY_MS, [props.slug])
  if (error && !value) return <span class="muted">counts: {describe(error)}</span>
  if (!value) return <span class="muted">counting…</span>
  return (
    <dl class="counts" aria-label={`task counts of ${props.slug}`}>
      <dt>waiting</dt>
      <dd data-count="waiting">{value.waiting}</dd>
      <dt>running</dt>
      <dd data-count="running">{value.running}</dd>
      <dt>finished</dt>
      <dd data-count="finished">{value.finished}</dd>
    </dl>
  )
}

export const AgentsPage = (props: { agents: DirectoryAgent[] }) => (
  <>
    <h1>Agents</h1>
    <ul class="cards">
      {props.agents.map((agent) => (
        <li class="card">
          <h2>
            <Link to={`/agents/${encodeURIComponent(agent.slug)}`}>{agent.display_name}</Link>
          </h2>
          <p class="muted">{agent.slug}</p>
          <CountsLine slug={agent.slug} />
        </li>
      ))}
    </ul>
  </>
)

export const AgentPage = (props: { slug: string }) => {
  const { value: cards, error } = usePoll(
    async () => {
      const [claw, a2a] = await Promise.all([
        getJson<ClawpediaCard>(clawpedia(props.slug, '/agent-card.json')),
        getJson<A2aCard>(clawpedia(props.slug, '/.well-known/agent-card.json')),
      ])
      return { claw, a2a }
    },
    60_000,
    [props.slug],
  )
  if (error && !cards) return <Notice kind="error">{describe(error)}</Notice>
  if (!cards) return <p>Loading…</p>
  const { claw, a2a } = cards
  const start = async (input: Record<string, unknown>) => {
    const task = await getJson<{ task_id: string }>(clawpedia(props.slug, '/tasks'), { body: { input } })
    navigate(`/tasks/${encodeURIComponent(props.slug)}/${task.task_id}`)
  }
  return (
    <>
      <h1>{claw.display_name}</h1>
      <p>{claw.description}</p>
      <CountsLine slug={props.slug} />
      <section aria-labelledby="start">
        <h2 id="start">Start a task</h2>
        <SchemaForm schema={claw.input_schema} submitLabel="Start task" onSubmit={start} />
      </section>
      <section aria-labelledby="skills">
        <h2 id="skills">Skills</h2>
        <ul>
          {(a2a.skills ?? []).map((skill) => (
            <li>
              <strong>{skill.name}</strong>: {skill.description}
              {skill.tags?.length ? <span class="muted"> ({skill.tags.join(', ')})</span> : null}
            </li>
          ))}
        </ul>
      </section>
      <div class="two">
        <section aria-labelledby="claw-card">
          <h2 id="claw-card">Clawpedia card</h2>
          <dl>
            <dt>Capabilities</dt>
            <dd>{claw.capabilities.join(', ') || '—'}</dd>
            <dt>Input schema</dt>
            <dd>
              <Json value={claw.input_schema} />
            </dd>
            {claw.output_schema && (
              <>
                <dt>Output schema</dt>
                <dd>
                  <Json value={claw.output_schema} />
                </dd>
              </>
            )}
          </dl>
          <Raw summary="Raw Clawpedia card" value={claw} />
        </section>
        <section aria-labelledby="a2a-card">
          <h2 id="a2a-card">A2A card</h2>
          <dl>
            <dt>Name, version</dt>
            <dd>
              {a2a.name} {a2a.version}
            </dd>
            <dt>Interfaces</dt>
            <dd>
              <ul>
                {(a2a.supportedInterfaces ?? []).map((i) => (
                  <li>
                    {i.protocolBinding} {i.protocolVersion}: <code>{i.url}</code>
                  </li>
                ))}
              </ul>
            </dd>
            <dt>Capabilities</dt>
            <dd>
              {Object.entries(a2a.capabilities ?? {})
                .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
                .join(', ') || '—'}
            </dd>
          </dl>
          <Raw summary="Raw A2A card" value={a2a} />
        </section>
      </div>
    </>
  )
}
