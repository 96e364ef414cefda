import { isTerminal } from '../model/states.ts'
import { ClientError, isClientError } from './errors.ts'
import type { TaskFolder } from './fold.ts'
import { backoffDelay, sleep } from './http.ts'
import type { RemoteTask, StreamFrame, TaskUpdate } from './types.ts'

export interface ReconnectOptions {
  /** First delay; each consecutive failure doubles it (with jitter). Default 250 ms. */
  baseMs?: number
  /** Delays never exceed this. Default 10 s. */
  maxMs?: number
  /** Consecutive attempts that bring nothing before giving up with STREAM_LOST. Default 8. */
  maxAttempts?: number
}

export interface HeartbeatOptions {
  /** How often the server pings an idle stream (Clawpedia: 15–20 s). Default 20 s. */
  intervalMs?: number
  /** Pings that may be missed before the stream counts as dead. Default 3. */
  missed?: number
}

export interface FollowSettings {
  reconnect: Required<ReconnectOptions>
  /** No byte for this long means the connection is dead: reconnect. */
  idleMs: number
  /** Bounds the wait for each (re)connection's response head. */
  timeoutMs: number
}

export const followSettings = (
  reconnect: ReconnectOptions = {},
  heartbeat: HeartbeatOptions = {},
  timeoutMs = 30_000,
): FollowSettings => ({
  reconnect: {
    baseMs: reconnect.baseMs ?? 250,
    maxMs: reconnect.maxMs ?? 10_000,
    maxAttempts: reconnect.maxAttempts ?? 8,
  },
  idleMs: (heartbeat.intervalMs ?? 20_000) * (heartbeat.missed ?? 3),
  timeoutMs,
})

export interface StreamSource {
  open(options: {
    lastEventId?: string
    signal: AbortSignal
    idleMs: number
    timeoutMs: number
  }): Promise<AsyncIterable<StreamFrame>>
  /** The task as the server has it now (GetTask). */
  refresh(signal: AbortSignal): Promise<RemoteTask>
}

/**
 * Whether a failure is the connection's (try again) rather than the server's answer (give up).
 * A 5xx or a 429 may heal; TASK_NOT_FOUND or UNSUPPORTED_OPERATION will not.
 */
export const isTransient = (error: unknown): boolean => {
  if (!isClientError(error)) return true
  switch (error.code) {
    case 'CONNECTION_FAILED':
    case 'TIMEOUT':
    case 'UNAVAILABLE':
    case 'INTERNAL':
      return true
    default:
      return error.unreachable
  }
}

/** Numeric ids (ours: event sequences) order the stream; a repeat or an older one is a duplicate. */
const isRepeat = (id: string, last: string | undefined): boolean => {
  if (last === undefined) return false
  const [a, b] = [Number(id), Number(last)]
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a <= b
}

/**
 * Follows a task's event stream until a terminal status, reconnecting for as long as attempts
 * bring progress. A reconnect sends the last event id received, so a server that resumes
 * (Last-Event-ID) replays exactly what was missed; ids already seen are dropped anyway, and a
 * server that answers a reconnect with a snapshot has it folded (reported only if it changed).
 *
 * A clean end of the stream before the terminal state (the A2A stream closes at
 * INPUT_REQUIRED; a server shutting down) is followed by a reconnect; when a connection brings
 * nothing new, GetTask says where the task stands (a server whose stream carries no status).
 * A subscription refused because the task is already over (UNSUPPORTED_OPERATION, TASK_TERMINAL)
 * ends with the task as GetTask shows it.
 */
export async function* followStream(
  folder: TaskFolder,
  source: StreamSource,
  options: { after?: string; signal: AbortSignal; settings: FollowSettings },
): AsyncGenerator<TaskUpdate> {
  const { signal, settings } = options
  const { baseMs, maxMs, maxAttempts } = settings.reconnect
  let lastId = options.after
  let failures = 0
  let lastError: unknown
  for (;;) {
    let progressed = false
    let openedAt: number | undefined
    const connection = new AbortController()
    const stop = (): void => connection.abort(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    try {
      const frames = await source.open({
        ...(lastId !== undefined && { lastEventId: lastId }),
        signal: connection.signal,
        idleMs: settings.idleMs,
        // A head that does not come within the heartbeat window is as dead as a silent body.
        timeoutMs: Math.min(settings.timeoutMs, settings.idleMs),
      })
      openedAt = Date.now()
      for await (const frame of frames) {
        if (frame.id !== undefined && isRepeat(frame.id, lastId)) continue
        // The cursor moves only once the frame is folded: an artifact that could not be fetched
        // is asked for again after the reconnect.
        const updates = await folder.apply(frame.item)
        if (frame.id !== undefined) lastId = frame.id
        for (const update of updates) {
          progressed = true
          yield frame.id === undefined ? update : { ...update, id: frame.id }
        }
        if (isTerminal(folder.task.state)) return
      }
      // A close that brought news is followed by a reconnect (a resuming server replays the rest);
      // one that brought nothing asks the server where the task stands.
      if (!progressed) {
        for (const update of await folder.apply({
          kind: 'task',
          task: await source.refresh(signal),
          snapshot: true,
        })) {
          progressed = true
          yield update
        }
        if (isTerminal(folder.task.state)) return
      }
    } catch (error) {
      if (signal.aborted)
        throw new ClientError('ABORTED', 'following the task was aborted', { cause: signal.reason })
      if (
        isClientError(error) &&
        (error.code === 'UNSUPPORTED_OPERATION' || error.code === 'TASK_TERMINAL')
      ) {
        yield* await folder.apply({ kind: 'task', task: await source.refresh(signal), snapshot: true })
        if (isTerminal(folder.task.state)) return
        throw error
      }
      if (!isTransient(error)) throw error
      lastError = error
    } finally {
      signal.removeEventListener('abort', stop)
      connection.abort()
    }
    // News resets the count. A connection that stayed healthy for a heartbeat window but brought
    // nothing (a long wait for input behind a proxy that recycles connections) is no failure
    // streak either, though it does not reconnect at once.
    const lasted = openedAt !== undefined && Date.now() - openedAt >= settings.idleMs
    failures = progressed ? 0 : lasted ? 1 : failures + 1
    if (failures >= maxAttempts) {
      throw new ClientError('STREAM_LOST', `the task's stream failed ${failures} times in a row`, {
        cause: lastError,
      })
    }
    await sleep(failures === 0 ? 0 : backoffDelay(failures, baseMs, maxMs), signal)
  }
}

export interface PollOptions {
  /** First and shortest interval. Default 250 ms. */
  minMs?: number
  /** Longest interval, reached while nothing changes. Default 5 s. */
  maxMs?: number
}

/**
 * For agents that do not stream (A2A capabilities.streaming false): GetTask on a backoff that
 * grows while nothing changes and starts over when something does. Log lines cannot be seen
 * this way; state changes and artifacts can.
 */
export async function* pollTask(
  folder: TaskFolder,
  refresh: (signal: AbortSignal) => Promise<RemoteTask>,
  options: PollOptions & { signal: AbortSignal; reconnect: Required<ReconnectOptions> },
): AsyncGenerator<TaskUpdate> {
  const minMs = options.minMs ?? 250
  const maxMs = options.maxMs ?? 5_000
  let interval = minMs
  let failures = 0
  for (;;) {
    let changed = false
    try {
      const updates = await folder.apply({
        kind: 'task',
        task: await refresh(options.signal),
        snapshot: true,
      })
      failures = 0
      for (const update of updates) {
        changed = true
        yield update
      }
      if (isTerminal(folder.task.state)) return
    } catch (error) {
      if (options.signal.aborted || !isTransient(error)) throw error
      failures += 1
      if (failures >= options.reconnect.maxAttempts) {
        throw new ClientError('STREAM_LOST', `polling the task failed ${failures} times in a row`, {
          cause: error,
        })
      }
    }
    interval = changed ? minMs : Math.min(maxMs, Math.round(interval * 1.5))
    const delay =
      failures > 0 ? backoffDelay(failures, options.reconnect.baseMs, options.reconnect.maxMs) : interval
    await sleep(delay, options.signal)
  }
}
