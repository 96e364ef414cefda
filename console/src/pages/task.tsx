import { useEffect, useState } from 'preact/hooks'
import { clawpedia, describe, getJson, send } from '../api.ts'
import { SchemaForm } from '../schema-form.tsx'
import { readSse } from '../sse.ts'
import { Json, Link, Notice, StateBadge, time } from '../ui.tsx'
import { Artifacts, type ClawpediaArtifact } from './artifacts.tsx'

interface ClawpediaTask {
  task_id: string
  status: string
  input: Record<string, unknown>
  output?: Record<string, unknown>
  prompt?: string
  input_schema?: Record<string, unknown>
  error?: { code: string; message: string }
  message?: { text?: string; data?: unknown }
  created_at: string
  updated_at: string
}

interface Entry {
  seq: string
  kind: string
  text: string
}

interface LogLine {
  seq: string
  timestamp: string
  level: string
  message: string
}

const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED']

/**
 * One task: the Clawpedia GET, then its stream (replayed from the first event, then live) for the
 * timeline, the log and each state change; artifacts reloaded as the stream announces them. The
 * stream closes at the end; when it drops before, it resumes with Last-Event-ID.
 */
const useTask = (slug: string, id: string) => {
  const [task, setTask] = useState<ClawpediaTask | undefined>(undefined)
  const [timeline, setTimeline] = useState<Entry[]>([])
  const [logs, setLogs] = useState<LogLine[]>([])
  const [artifacts, setArtifacts] = useState<ClawpediaArtifact[]>([])
  const [error, setError] = useState<string | undefined>(undefined)

  useEffect(() => {
    const controller = new AbortController()
    const { signal } = controller
    const loadArtifacts = () =>
      getJson<{ artifacts: ClawpediaArtifact[] }>(clawpedia(slug, `/tasks/${id}/artifacts`), { signal })
        .then((page) => setArtifacts(page.artifacts))
        .catch(() => undefined)
    setTask(undefined)
    setTimeline([])
    setLogs([])
    setError(undefined)
    const follow = async () => {
      let current = await getJson<ClawpediaTask>(clawpedia(slug, `/tasks/${id}`), { signal })
      setTask(current)
      void loadArtifacts()
      let last: string | undefined
      // Opened even for a finished task: its stream replays the events (the timeline, the log) and closes.
      for (
        let first = true;
        !signal.aborted && (first || !TERMINAL.includes(current.status));
        first = false
      ) {
        const response = await send(clawpedia(slug, `/tasks/${id}/stream`), {
          signal,
          headers: last ? { 'last-event-id': last } : {},
        })
        for await (const frame of readSse(response.body!)) {
          if (frame.event === 'ping') continue
          const seq = frame.id ?? ''
          last = frame.id ?? last
          const data = JSON.parse(frame.data)
          if (frame.event === 'status') {
            current = data as ClawpediaTask
            setTask(current)
            setTimeline((t) => [...t, { seq, kind: 'status', text: current.status }])
            void loadArtifacts()
          } else if (frame.event === 'log') {
            setLogs((l) => [...l, { seq, ...(data as Omit<LogLine, 'seq'>) }])
            setTimeline((t) => [...t, { seq, kind: 'log', text: `${data.level}: ${data.message}` }])
          } else if (frame.event === 'artifact.update') {
            if (data.append !== true)
              setTimeline((t) => [...t, { seq, kind: 'artifact', text: data.artifact_id }])
            if (data.append !== true || data.last_chunk === true) void loadArtifacts()
          }
        }
        // A finished task's stream replays and closes; a dropped one resumes after a pause.
        if (!TERMINAL.includes(current.status)) await new Promise((r) => setTimeout(r, 1000))
      }
      void loadArtifacts()
    }
    follow().catch((failure: unknown) => {
      if (!signal.aborted) setError(describe(failure))
    })
    return () => controller.abort()
  }, [slug, id])
  return { task, timeline, logs, artifacts, error }
}

export const TaskPage = (props: { slug: string; id: string }) => {
  const { task, timeline, logs, artifacts, error } = useTask(props.slug, props.id)
  const [actionError, setActionError] = useState<string | undefined>(undefined)
  if (error && !task) return <Notice kind="error">{error}</Notice>
  if (!task) return <p>Loading…</p>
  // The new state is not taken from the action's answer: the stream reports it in order, and an
  // answer arriving after the stream's next frame (COMPLETED, say) would put the task back.
  const act = (path: string, body: unknown) =>
    send(clawpedia(props.slug, `/tasks/${props.id}${path}`), { body }).then(() => undefined)
  const cancel = () => {
    setActionError(undefined)
    act('/cancel', {}).catch((failure: unknown) => setActionError(describe(failure)))
  }
  return (
    <>
      <p>
        <Link to="/tasks">← Tasks</Link>
      </p>
      <h1>
        Task <code>{task.task_id}</code>
      </h1>
      <dl class="facts">
        <dt>Agent</dt>
        <dd>
          <Link to={`/agents/${encodeURIComponent(props.slug)}`}>{props.slug}</Link>
        </dd>
        <dt>State</dt>
        <dd aria-live="polite">
          <StateBadge state={task.status} />
        </dd>
        <dt>Created</dt>
        <dd>{time(task.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{time(task.updated_at)}</dd>
      </dl>
      {!TERMINAL.includes(task.status) && (
        <button type="button" class="danger" onClick={cancel}>
          Cancel task
        </button>
      )}
      {actionError && <Notice kind="error">{actionError}</Notice>}
      {error && <Notice kind="error">The stream stopped: {error}</Notice>}
      <StatusMessage task={task} />
      {task.status === 'INPUT_REQUIRED' && (
        <section aria-labelledby="answer">
          <h2 id="answer">Answer</h2>
          <SchemaForm
            key={task.updated_at}
            schema={task.input_schema ?? { type: 'object' }}
            submitLabel="Send answer"
            onSubmit={(input) => act('/input', { input })}
          />
        </section>
      )}
      <div class="two">
        <section aria-labelledby="logs">
          <h2 id="logs">Log</h2>
          {logs.length === 0 ? (
            <p class="muted">No log lines yet.</p>
          ) : (
            <ol class="log" aria-live="polite">
              {logs.map((line) => (
                <li key={line.seq} class={`level-${line.level.toLowerCase()}`}>
                  <time>{time(line.timestamp)}</time> <span class="level">{line.level}</span> {line.message}
                </li>
              ))}
            </ol>
          )}
        </section>
        <section aria-labelledby="timeline">
          <h2 id="timeline">Events</h2>
          <ol class="timeline">
            {timeline.map((entry) => (
              <li key={`${entry.seq}-${entry.kind}`}>
                <span class="seq">#{entry.seq}</span> <span class="kind">{entry.kind}</span> {entry.text}
              </li>
            ))}
          </ol>
        </section>
      </div>
      <div class="two">
        <section aria-labelledby="input">
          <h2 id="input">Input</h2>
          <Json value={task.input} label="task input" />
        </section>
        <section aria-labelledby="output">
          <h2 id="output">Output</h2>
          {task.output ? <Json value={task.output} label="task output" /> : <p class="muted">None yet.</p>}
        </section>
      </div>
      <section aria-labelledby="artifacts">
        <h2 id="artifacts">Artifacts</h2>
        <Artifacts slug={props.slug} artifacts={artifacts} />
      </section>
    </>
  )
}

const StatusMessage = (props: { task: ClawpediaTask }) => {
  const { task } = props
  if (!task.prompt && !task.message && !task.error) return null
  return (
    <section aria-labelledby="status-message">
      <h2 id="status-message">Status message</h2>
      {task.prompt && <p class="prompt">{task.prompt}</p>}
      {task.message?.text && <p>{task.message.text}</p>}
      {task.message?.data !== undefined && <Json value={task.message.data} />}
      {task.error && (
        <Notice kind="error">
          {task.error.code}: {task.error.message}
        </Notice>
      )}
    </section>
  )
}
