import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import type { AnswerMessage, AuthRequest, FileFetcher, LogLevelName, TaskContext } from '../agent/context.ts'
import type { EventBus } from '../events/contract.ts'
import { creatorOf } from '../model/caller.ts'
import { isSwitchboardError, SwitchboardError } from '../model/errors.ts'
import type { EventBody, JsonObject, LogLevel, StatusEvent, TaskEvent } from '../model/events.ts'
import { newId } from '../model/ids.ts'
import { isTerminal } from '../model/states.ts'
import type { Task } from '../model/task.ts'
import { assertValidSchema } from '../schema/json-schema.ts'
import type { Store } from '../store/contract.ts'
import { authRequiredStatus } from './auth-required.ts'
import { frozenCaller } from './caller.ts'
import type { CommittedWrite } from './committed.ts'
import { HandlerContext } from './handler-context.ts'
import { answerMessage } from './input.ts'
import { LIMITS } from './limits.ts'
import { completion, failure } from './outcome.ts'
import type { HostedAgent } from './registry.ts'
import { type Resume, resumedStatus, resumeSpanAttributes } from './resume.ts'
import { RunArtifacts } from './run-artifacts.ts'
import { originLinks } from './trace-context.ts'

/** Thrown out of `ctx.ask` when the question is unanswered: this run ends, a later one resumes. */
export class TaskSuspended extends Error {
  constructor() {
    super('the task is waiting for input; this run ends here and the handler runs again when input arrives')
    this.name = 'TaskSuspended'
  }
}

export interface TaskRunOptions {
  /** The task as claimed: its recorded logs, artifacts and answers drive the replay. */
  task: Task
  agent: HostedAgent
  store: Store
  bus: EventBus
  /** The lease owner (this replica): every write is guarded by it. */
  owner: string
  /** Called after every committed append (publishes on the bus, wakes the push worker). */
  committed: (taskId: string, write: CommittedWrite) => void
  /** Downloads through the server's outbound policy. */
  fetchFile: FileFetcher
  /** What the task's artifacts may take in all (LIMITS.taskArtifactBytes by default). */
  taskArtifactBytes?: number
  /** Files up to this size keep their bytes inline (LIMITS.inlineFileBytes by default). */
  inlineFileBytes?: number
  /** Set when this run replays a task whose previous run never finished: it says so first. */
  resume?: Resume | undefined
}

interface PendingWrite {
  body: EventBody
  blob: Uint8Array | undefined
  /** The run's terminal status: it releases the lease with it. */
  last: boolean
  /** Unset for a write answered at once (`#accept`): no one waits on it, its failure aborts the run. */
  resolve?: (event: TaskEvent) => void
  reject?: (error: unknown) => void
}

/** What an accepted write answers: one settled promise shared by all of them. */
const ACCEPTED: Promise<unknown> = Promise.resolve()

/** Writes a run may have queued, uncommitted, before its log and artifact calls wait for the store. */
const QUEUE_LIMIT = 256

const LEVELS: Record<LogLevelName, LogLevel> = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' }

/** Marks a promise handed to a handler as handled: a handler that ignores it must not crash the process. */
const handled = <T>(promise: Promise<T>): Promise<T> => {
  promise.catch(() => {})
  return promise
}

/**
 * One execution of a task's handler, from claim to a final status or a suspension.
 *
 * Writes are serialised through one queue and committed in batches: calls a handler makes without
 * awaiting share one transaction, and events keep the order of the calls. After the task turns
 * terminal (cancelled) or the lease is lost, the store refuses every write and the signal aborts.
 */
export class TaskRun {
  readonly taskId: string
  readonly agentSlug: string
  readonly #options: TaskRunOptions
  /**
   * Made when first asked for (a handler reading ctx.signal, a download): an AbortSignal costs more
   * than the rest of a short run's bookkeeping, and most handlers never look at it.
   */
  #controller: AbortController | undefined
  #aborted = false
  #abortReason: unknown
  /** Wakes #invoke's race when the run is aborted. */
  #onAbort: (() => void) | undefined
  readonly #queue: PendingWrite[] = []
  #flushing: Promise<void> | undefined
  #suspended = false
  /** Set once the run writes its own outcome: its own terminal status is no cancellation. */
  #ending = false
  #logsSeen = 0
  #asksSeen = 0
  readonly #artifacts: RunArtifacts
  #released = false
  /** The first error the store failed a write with (not a refusal): the run cannot finish. */
  #writeFailure: unknown

  constructor(options: TaskRunOptions) {
    this.#options = options
    this.taskId = options.task.id
    this.agentSlug = options.task.agent
    this.#artifacts = new RunArtifacts({
      task: options.task,
      accept: (body, blob) => this.#accept(body, blob),
      taskArtifactBytes: options.taskArtifactBytes,
      inlineFileBytes: options.inlineFileBytes,
    })
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#abortReason)
    }
    return this.#controller.signal
  }

  /** Why the run was aborted (cancelled, lease lost, suspended, shutting down); undefined while it runs. */
  get abortReason(): unknown {
    return this.#abortReason
  }

  /** True once the run's last write committed and released the lease with it. */
  get released(): boolean {
    return this.#released
  }

  abort(reason: SwitchboardError): void {
    this.#abort(reason)
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#abortReason = reason
    this.#controller?.abort(reason)
    this.#onAbort?.()
  }

  /** Runs the handler; resolves when the run is over (final status written, suspended, or aborted). */
  async execute(): Promise<void> {
    const { task, agent, bus } = this.#options
    const unsubscribe = bus.subscribe(task.id, (note) => {
      if (note.events) {
        if (note.events.some((e) => e.kind === 'status' && isTerminal(e.state))) this.#cancelled()
      } else {
        // A note from another replica: look at the task itself.
        this.#options.store.readEvents(task.id, note.seq - 1, 1).then(
          (events) => {
            if (events.some((e) => e.kind === 'status' && isTerminal(e.state))) this.#cancelled()
          },
          () => {},
        )
      }
    })
    try {
      // Not awaited: WORKING goes out in one batch with what the handler emits first.
      if (task.state === 'SUBMITTED') void handled(this.#write({ kind: 'status', state: 'WORKING' }))
      else if (this.#options.resume) void handled(this.#write(resumedStatus(this.#options.resume)))
      const outcome = await this.#invoke(agent, task)
      if (outcome) await this.#finish(outcome)
    } catch (error) {
      if (!isRefusal(error)) throw error
    } finally {
      unsubscribe()
    }
    // A write the store failed (not refused): what the handler went on to emit was never written,
    // and this run cannot say how it ended. The caller leaves the lease to lapse (as a crash would).
    if (this.#writeFailure !== undefined) throw this.#writeFailure
  }

  #cancelled(): void {
    if (this.#ending) return
    this.abort(new SwitchboardError('TASK_TERMINAL', `task ${this.taskId} reached a terminal state`))
  }

  /** Calls the handler and turns its result into the final status, or nothing when the run was cut short. */
  async #invoke(agent: HostedAgent, task: Task): Promise<EventBody | undefined> {
    const aborted = new Promise<'aborted'>((resolve) => {
      if (this.#aborted) resolve('aborted')
      else this.#onAbort = () => resolve('aborted')
    })
    // A span per handler run (a replay after a restart or takeover is a run too); no-op when off.
    // Any run but the first (an answer's, a replay's) links back to the trace that created the task.
    const resumed = task.state !== 'SUBMITTED'
    const span = trace.getTracer('switchboard').startSpan('handler.run', {
      attributes: {
        'switchboard.agent': agent.definition.slug,
        'switchboard.task.id': task.id,
        'switchboard.context.id': task.contextId,
        ...(resumed && { 'switchboard.run.resumed': true }),
      },
      ...(resumed && { links: originLinks(task) }),
    })
    if (this.#options.resume) span.addEvent('task.resumed', resumeSpanAttributes(this.#options.resume))
    const running = context.with(trace.setSpan(context.active(), span), () =>
      Promise.resolve().then(() => agent.definition.handler(task.input, this.#context())),
    )
    running.catch(() => {}) // its rejection is read below, or abandoned after an abort
    let output: unknown
    try {
      const result = await Promise.race([running, aborted])
      if (result === 'aborted') return undefined
      output = result
    } catch (error) {
      if (this.#aborted || this.#suspended) return undefined
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message })
      return failure(error)
    } finally {
      // A run suspended for input or aborted leaves its handler pending: the span ends with the run.
      if (this.#suspended) span.setAttribute('switchboard.run.suspended', true)
      span.end()
    }
    if (this.#suspended) return undefined
    return completion(output, agent)
  }

  /**
   * Writes the final status (a refusal or a failure to write it reaches execute()), after the last
   * chunk of every stream the handler left open, in the same batch: a stream always ends.
   */
  async #finish(status: EventBody): Promise<void> {
    this.#ending = true
    for (const last of this.#artifacts.closeStreams()) void handled(this.#write(last))
    await this.#write(status, undefined, true)
  }

  #context(): TaskContext {
    const { task } = this.#options
    const inputEvent = task.history.find((m) => m.role === 'user')
    const caller = frozenCaller(creatorOf(task))
    return new HandlerContext(this, {
      taskId: task.id,
      contextId: task.contextId,
      text: task.text,
      message: inputEvent,
      caller,
      extensions: Object.freeze([...(task.extensions ?? [])]),
      log: (level, message) => handled(this.#log(level, message)),
      artifact: (spec) => handled(this.#artifacts.artifact(spec)),
      artifactStream: (spec) => handled(this.#artifacts.stream(spec)),
      ask: (prompt, options) => handled(this.#ask(prompt, options?.schema)),
      requireAuth: (request) => handled(this.#requireAuth(request)),
      fetchFile: (url, options) =>
        handled(this.#options.fetchFile(url, Object.assign({}, options, { signal: this.signal }))),
    })
  }

  async #log(level: LogLevelName, message: string): Promise<void> {
    if (this.#logsSeen++ < this.#options.task.logCount) return
    const upper = LEVELS[level]
    if (!upper) throw new TypeError(`log level must be one of ${Object.keys(LEVELS).join(', ')}`)
    let text = String(message)
    if (text.length > LIMITS.logMessageChars) text = `${text.slice(0, LIMITS.logMessageChars)}… [truncated]`
    await this.#accept({ kind: 'log', level: upper, message: text })
  }

  async #ask(prompt: string, schema: JsonObject | undefined): Promise<AnswerMessage> {
    return this.#interrupt(() => {
      if (typeof prompt !== 'string' || prompt.length === 0)
        throw new TypeError('ask() needs a non-empty prompt')
      if (schema !== undefined) assertValidSchema(schema, 'ask() schema')
      const status: StatusEvent = { kind: 'status', state: 'INPUT_REQUIRED', prompt, messageId: newId() }
      if (schema !== undefined) status.inputSchema = schema
      return status
    })
  }

  async #requireAuth(request: AuthRequest): Promise<AnswerMessage> {
    return this.#interrupt(() => authRequiredStatus(request))
  }

  /**
   * A question to the client (`ask`, `requireAuth`): the recorded answer at this position on a
   * replay; else the status `question()` builds is written and the run suspends.
   */
  async #interrupt(question: () => StatusEvent): Promise<AnswerMessage> {
    const index = this.#asksSeen++
    const recorded = this.#options.task.answers[index]
    if (recorded) return answerMessage(recorded, this.#options.task.history)
    const status = question()
    this.#suspended = true
    // Not the run's last write as far as the lease goes: released only after this run has wound
    // down, so an answer cannot start the next run of the task beside this one.
    await this.#write(status)
    const suspended = new TaskSuspended()
    this.#abort(suspended)
    throw suspended
  }

  /**
   * Queues a log line or an artifact and answers at once: it is committed in order with the run's
   * other writes, before anyone can see it, and at the latest with the run's outcome. A refused
   * write (the task ended, the lease is lost) aborts the signal, and every later call rejects.
   * A handler that outruns the store waits for its queue to drain below QUEUE_LIMIT, and file
   * bytes are never held in memory unwritten: a file artifact answers once it is stored.
   */
  #accept(body: EventBody, blob?: Uint8Array): Promise<unknown> {
    // Counted before this write joins the queue: past QUEUE_LIMIT with it, the handler waits.
    if (blob || this.#aborted || this.#queue.length >= QUEUE_LIMIT) return handled(this.#write(body, blob))
    // Answered now, so no promise of its own: a stream's events are mostly these.
    this.#enqueue({ body, blob: undefined, last: false })
    return ACCEPTED
  }

  #write(body: EventBody, blob?: Uint8Array, last = false): Promise<TaskEvent> {
    if (this.#aborted) return Promise.reject(this.#abortReason)
    return new Promise<TaskEvent>((resolve, reject) => {
      this.#enqueue({ body, blob, last, resolve, reject })
    })
  }

  #enqueue(write: PendingWrite): void {
    this.#queue.push(write)
    this.#flushing ??= this.#flush()
  }

  async #flush(): Promise<void> {
    // Yield a turn so calls made meanwhile join this batch.
    await new Promise((r) => setImmediate(r))
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0)
      const blobs = new Map<string, Uint8Array>()
      let last = false
      for (const write of batch) {
        if (write.blob && write.body.kind === 'artifact') blobs.set(write.body.artifact.id, write.blob)
        last ||= write.last
      }
      try {
        const appended = await this.#options.store.append({
          taskId: this.taskId,
          events: batch.map((w) => w.body),
          blobs,
          leaseOwner: this.#options.owner,
          ...(last && { releaseLease: true }),
        })
        if (last) this.#released = true
        const { events } = appended
        // A status change folds the task anyway; a log or an artifact alone is not worth folding
        // (a quiet append's task is folded only when read).
        const folded = events.some((e) => e.kind === 'status')
        this.#options.committed(this.taskId, folded ? appended : { events, outbox: appended.outbox === true })
        for (const [i, write] of batch.entries()) write.resolve?.(events[i]!)
      } catch (error) {
        for (const write of batch) write.reject?.(error)
        // Refused (the task ended, the lease is lost) or failed (the database): either way nothing
        // after this batch may be written, or the log would skip what the handler was told was
        // accepted. Later calls reject and the signal aborts.
        if (!isRefusal(error)) this.#writeFailure ??= error
        this.#abort(error)
      }
    }
    this.#flushing = undefined
  }
}

/** The store refused the write by rule (the task ended, the lease moved): not a failure of the run. */
const isRefusal = (error: unknown): boolean =>
  isSwitchboardError(error) && (error.code === 'TASK_TERMINAL' || error.code === 'LEASE_LOST')
