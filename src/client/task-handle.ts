import { INTERRUPTED_STATES, isTerminal, type TaskState } from '../model/states.ts'
import {
  type DownloadContext,
  type DownloadOptions,
  type DownloadResult,
  downloadArtifact,
} from './download.ts'
import { ClientError, isClientError } from './errors.ts'
import { TaskFolder } from './fold.ts'
import { type FollowSettings, followStream, type PollOptions, pollTask } from './follow.ts'
import type { Interfaces } from './interfaces.ts'
import { payloadOf, type SendInput } from './payload.ts'
import { PushFeed } from './push-feed.ts'
import type { CallOptions, RemoteArtifact, RemoteTask, TaskUpdate } from './types.ts'

/** How a handle learns about its task: SSE (with resume), polling, or webhook deliveries. */
export type FollowMode = 'auto' | 'stream' | 'poll' | 'push'

export interface EventsOptions {
  signal?: AbortSignal
  /** Resume after this event id instead of starting from the beginning (stream mode). */
  after?: string
  /** Default 'auto': push when the handle is registered with a webhook receiver, else stream if the agent streams, else poll. */
  via?: FollowMode
  /**
   * 'terminal' (default): until the task ends. 'settled': also stop at an INPUT_REQUIRED or
   * AUTH_REQUIRED that is the task's current state (not one replayed from its history).
   */
  until?: 'terminal' | 'settled'
}

/** What the agent connection gives its task handles. */
export interface HandleContext {
  interfaces: Interfaces
  follow: FollowSettings
  poll: PollOptions
  timeoutMs: number
  download: DownloadContext
  /** Throws OutputSchemaError when a COMPLETED task's output breaks the agent's output schema. */
  checkOutput(task: RemoteTask): void
}

/** The receiver's way in: a handle's push feed, created on first use (kept off the public surface). */
export let pushFeedOf: (handle: TaskHandle) => PushFeed

/**
 * One task of one agent. `task` is the latest state known; `events()` follows the task (from its
 * first event, over any of the agent's interfaces, reconnecting as needed); `wait()` returns once
 * it ends or waits for input. Every call takes a signal and a timeout.
 */
export class TaskHandle {
  readonly #context: HandleContext
  #task: RemoteTask
  #feed: PushFeed | undefined
  /** When the question last answered here was asked: that INPUT_REQUIRED is no longer a place to stop. */
  #answered: string | undefined
  readonly #extensions: readonly string[]

  static {
    pushFeedOf = (handle) => {
      handle.#feed ??= new PushFeed()
      return handle.#feed
    }
  }

  constructor(context: HandleContext, task: RemoteTask) {
    this.#context = context
    this.#task = task
    this.#extensions = Object.freeze([...(task.extensions ?? [])])
  }

  /**
   * A2A: the extensions the agent activated for the message that created the task (the echo of
   * `send`), which its handler works with; empty when none, and for a handle from `agent.task(id)`.
   */
  get extensions(): readonly string[] {
    return this.#extensions
  }

  get id(): string {
    return this.#task.id
  }

  get contextId(): string | undefined {
    return this.#task.contextId
  }

  /** The task's state as last seen, in the model's names. */
  get status(): TaskState {
    return this.#task.state
  }

  get task(): RemoteTask {
    return this.#task
  }

  /** Asks the agent for the task as it is now. */
  async refresh(options: CallOptions = {}): Promise<RemoteTask> {
    if (this.#task.reply) return this.#task
    const task = await this.#context.interfaces.run((t) => t.get(this.id, this.#call(options)))
    return this.#observe(task, true)
  }

  /**
   * The task's updates. A COMPLETED status whose output breaks the agent's output schema ends the
   * iteration with OutputSchemaError instead of being yielded.
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<TaskUpdate> {
    if (this.#task.reply) {
      yield { type: 'status', task: this.#task }
      return
    }
    const stop = new AbortController()
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal
    try {
      for await (const received of this.#source(options, signal)) {
        const update = await this.#completed(received, signal)
        if (update.type === 'status') {
          if (update.task.state === 'COMPLETED') this.#context.checkOutput(update.task)
          this.#observe(update.task, false)
        }
        yield update
        if (update.type !== 'status') continue
        if (isTerminal(update.task.state)) return
        if (options.until === 'settled' && INTERRUPTED_STATES.has(update.task.state)) {
          // A replay passes through old questions; only one the task still waits on stops here.
          const now = await this.refresh({ signal })
          if (this.#waitsForInput(now)) return
        }
      }
    } finally {
      stop.abort()
    }
  }

  /** Until the task is terminal or waits for input; COMPLETED output is checked against the schema. */
  async wait(options: CallOptions & { via?: FollowMode } = {}): Promise<RemoteTask> {
    const { signal, expired } = deadline(options)
    try {
      if (this.#task.reply || isTerminal(this.#task.state)) return this.#checked(this.#task)
      const now = await this.refresh({ signal })
      if (isTerminal(now.state) || this.#waitsForInput(now)) return this.#checked(now)
      for await (const _ of this.events({
        signal,
        until: 'settled',
        ...(options.via && { via: options.via }),
      })) {
        // events() keeps `task` current; wait() only needs where it stops.
      }
      return this.#task
    } catch (error) {
      throw expired(error)
    }
  }

  /**
   * Answers an INPUT_REQUIRED task: Clawpedia POST /tasks/{id}/input, A2A a follow-up message with
   * the task's taskId and contextId carrying the input as a data part.
   */
  async provideInput(input: SendInput, options: CallOptions & { as?: 'input' } = {}): Promise<RemoteTask> {
    const payload = payloadOf(input, options.as)
    const asked = this.#task.updatedAt
    const task = await this.#context.interfaces.run((t) =>
      t.provideInput(this.#task, payload, this.#call(options)),
    )
    this.#answered = asked ?? task.updatedAt
    return this.#observe(task, true)
  }

  async cancel(options: CallOptions = {}): Promise<RemoteTask> {
    if (this.#task.reply)
      throw new ClientError(
        'UNSUPPORTED_OPERATION',
        'the agent answered with a message; there is no task to cancel',
      )
    const task = await this.#context.interfaces.run((t) => t.cancel(this.id, this.#call(options)))
    return this.#observe(task, true)
  }

  async artifacts(options: CallOptions = {}): Promise<RemoteArtifact[]> {
    if (this.#task.reply) return []
    return this.#context.interfaces.run((t) => t.artifacts(this.id, this.#call(options)))
  }

  /** Saves an artifact (or the artifact with this id) to disk; see DownloadOptions. */
  async download(artifact: RemoteArtifact | string, options: DownloadOptions): Promise<DownloadResult> {
    const target =
      typeof artifact === 'string' ? (await this.artifacts(options)).find((a) => a.id === artifact) : artifact
    if (!target)
      throw new ClientError('ARTIFACT_NOT_FOUND', `task ${this.id} has no artifact ${String(artifact)}`)
    return downloadArtifact(target, options, this.#context.download)
  }

  /**
   * An A2A completion that arrived without the output (push bodies never carry it; a snapshot
   * may omit artifacts) is completed from GetTask, where the output artifact is.
   */
  async #completed(update: TaskUpdate, signal: AbortSignal): Promise<TaskUpdate> {
    if (update.type !== 'status' || update.task.state !== 'COMPLETED') return update
    if (update.task.dialect !== 'a2a' || update.task.output !== undefined) return update
    const now = await this.refresh({ signal })
    if (now.output === undefined) return update
    return {
      ...update,
      task: { ...update.task, output: now.output, artifacts: now.artifacts ?? update.task.artifacts ?? [] },
    }
  }

  #source(options: EventsOptions, signal: AbortSignal): AsyncIterable<TaskUpdate> {
    const { interfaces, follow, poll } = this.#context
    const folder = new TaskFolder(this.#task, async (id) =>
      (await this.artifacts({ signal })).find((artifact) => artifact.id === id),
    )
    const refresh = (s: AbortSignal) =>
      interfaces.run((t) => t.get(this.id, { signal: s, timeoutMs: this.#context.timeoutMs }))
    const via = options.via ?? 'auto'
    if (via === 'push' || (via === 'auto' && this.#feed)) return pushUpdates(pushFeedOf(this), folder, signal)
    if (via === 'poll' || (via === 'auto' && !interfaces.current.streaming)) {
      return pollTask(folder, refresh, { ...poll, signal, reconnect: follow.reconnect })
    }
    return followStream(
      folder,
      {
        open: (o) =>
          interfaces.run((t) => {
            // From the first event: A2A servers that resume (ours) replay from 0; others send a snapshot.
            const lastEventId = o.lastEventId ?? (t.dialect === 'a2a' ? '0' : undefined)
            return t.stream(this.id, { ...o, ...(lastEventId !== undefined && { lastEventId }) })
          }),
        refresh,
      },
      { signal, settings: follow, ...(options.after !== undefined && { after: options.after }) },
    )
  }

  /**
   * Keeps `task` the newest state known: a replayed status older than what is known does not
   * move it back, and nothing moves it out of a terminal state. `authoritative` answers (GetTask,
   * cancel, input) always count unless they would leave a terminal state.
   */
  #observe(task: RemoteTask, authoritative: boolean): RemoteTask {
    const current = this.#task
    if (isTerminal(current.state) && !isTerminal(task.state)) return task
    const older = !authoritative && current.updatedAt && task.updatedAt && task.updatedAt < current.updatedAt
    if (!older) this.#task = { ...task, artifacts: task.artifacts ?? current.artifacts ?? [] }
    return task
  }

  /**
   * Whether the task waits for input now. Some servers (@a2a-js/sdk) still report the question
   * just answered until the agent picks the answer up; a question asked no later than that one is
   * not one to stop at.
   */
  #waitsForInput(task: RemoteTask): boolean {
    if (!INTERRUPTED_STATES.has(task.state)) return false
    const answered = this.#answered
    return answered === undefined || task.updatedAt === undefined || task.updatedAt > answered
  }

  #checked(task: RemoteTask): RemoteTask {
    if (task.state === 'COMPLETED') this.#context.checkOutput(task)
    return task
  }

  #call(options: CallOptions): CallOptions {
    return { ...options, timeoutMs: options.timeoutMs ?? this.#context.timeoutMs }
  }
}

async function* pushUpdates(
  feed: PushFeed,
  folder: TaskFolder,
  signal: AbortSignal,
): AsyncGenerator<TaskUpdate> {
  for await (const item of feed.items(signal)) {
    yield* await folder.apply(item)
    if (isTerminal(folder.task.state)) return
  }
}

/** A signal for the whole of a long call, and the error to report when its time is up. */
const deadline = (
  options: CallOptions,
): { signal: AbortSignal | undefined; expired: (error: unknown) => unknown } => {
  if (options.timeoutMs === undefined) return { signal: options.signal, expired: (error) => error }
  const timer = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer
  return {
    signal,
    expired: (error) =>
      timer.aborted && isClientError(error) && error.code === 'ABORTED'
        ? new ClientError('TIMEOUT', `the task did not settle within ${options.timeoutMs} ms`, {
            cause: error,
          })
        : error,
  }
}
