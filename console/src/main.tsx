import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, a2aJson, credential, describe, getJson, send } from './api.ts'
import { AgentPage, AgentsPage } from './pages/agents.tsx'
import { HealthPage } from './pages/health.tsx'
import { PushPage } from './pages/push.tsx'
import { TaskPage } from './pages/task.tsx'
import { TasksPage } from './pages/tasks.tsx'
import { usePath } from './router.ts'
import './styles.css'
import { Link, Notice } from './ui.tsx'

export interface DirectoryAgent {
  slug: string
  agent_id: string
  display_name: string
}

type Session = { kind: 'checking' } | { kind: 'login'; error?: string } | { kind: 'in'; anonymous: boolean }

/**
 * Whether the APIs take the stored credential (or, without one, serve anonymous callers): one
 * ListTasks of the first agent, as any client would make it. 401 means sign in (unless the
 * credential is the admin token); anything else means in (a 403 from an agent's access rule is
 * that agent's business, shown where it happens).
 */
const check = async (agents: DirectoryAgent[]): Promise<Session> => {
  try {
    if (agents[0]) await a2aJson(agents[0].slug, '/tasks?pageSize=1')
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      if (!credential.get()) return { kind: 'login' }
      // The admin token is no caller of the agents' APIs, but it opens /admin: the Push and
      // Health pages work with it, and the others say what it may not see.
      const admin = await send('/admin/deliveries/stats').then(
        () => true,
        () => false,
      )
      return admin
        ? { kind: 'in', anonymous: false }
        : { kind: 'login', error: 'The server refused this credential.' }
    }
    if (!(error instanceof ApiError && error.status === 403)) throw error
  }
  return { kind: 'in', anonymous: credential.get() === undefined }
}

const App = () => {
  const path = usePath()
  const [agents, setAgents] = useState<DirectoryAgent[] | undefined>(undefined)
  const [session, setSession] = useState<Session>({ kind: 'checking' })
  const [failure, setFailure] = useState<string | undefined>(undefined)

  const start = async () => {
    try {
      const directory = agents ?? (await getJson<{ agents: DirectoryAgent[] }>('/agents')).agents
      setAgents(directory)
      const next = await check(directory)
      if (next.kind === 'login' && next.error) credential.clear()
      setSession(next)
    } catch (error) {
      setFailure(describe(error))
    }
  }
  useEffect(() => {
    void start()
  }, [])

  if (failure) return <Notice kind="error">The server did not answer: {failure}</Notice>
  if (session.kind === 'checking' || !agents) return <p>Loading…</p>
  if (session.kind === 'login') return <Login error={session.error} onCredential={start} />
  const signOut = () => {
    credential.clear()
    setSession({ kind: 'login' })
  }
  return (
    <>
      <header>
        <strong class="brand">Switchboard</strong>
        <nav aria-label="Sections">
          <Link to="/">Agents</Link>
          <Link to="/tasks">Tasks</Link>
          <Link to="/push">Push</Link>
          <Link to="/health">Health</Link>
        </nav>
        <span class="who">
          {session.anonymous ? (
            'Anonymous: this server has no authentication configured'
          ) : (
            <>
              Signed in{' '}
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </>
          )}
        </span>
      </header>
      <main>
        <Route path={path} agents={agents} />
      </main>
    </>
  )
}

const Route = (props: { path: string; agents: DirectoryAgent[] }) => {
  const parts = props.path.split('/').filter(Boolean).map(decodeURIComponent)
  if (parts.length === 0) return <AgentsPage agents={props.agents} />
  if (parts[0] === 'agents' && parts[1]) return <AgentPage slug={parts[1]} />
  if (parts[0] === 'tasks' && parts[1] && parts[2]) return <TaskPage slug={parts[1]} id={parts[2]} />
  if (parts[0] === 'tasks') return <TasksPage agents={props.agents} />
  if (parts[0] === 'push') return <PushPage />
  if (parts[0] === 'health') return <HealthPage />
  return <Notice kind="error">No such page.</Notice>
}

const Login = (props: { error?: string | undefined; onCredential: () => Promise<void> }) => {
  const [value, setValue] = useState('')
  return (
    <main class="login">
      <h1>Switchboard console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          credential.set(value.trim())
          void props.onCredential()
        }}
      >
        <label for="credential">
          API key or bearer token
          <input
            id="credential"
            type="password"
            autoComplete="off"
            required
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        <p class="hint">Kept in this tab only (sessionStorage) and sent as Authorization: Bearer.</p>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <button type="submit">Sign in</button>
      </form>
    </main>
  )
}

render(<App />, document.getElementById('app')!)
