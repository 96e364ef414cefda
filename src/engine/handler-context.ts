import type { TaskContext } from '../agent/context.ts'
import type { CallerIdentity } from '../model/caller.ts'
import type { Message } from '../model/parts.ts'

/**
 * The context a run hands its handler. A class so that `signal` is a getter on the prototype, made
 * on first read (an AbortSignal costs more than the rest of a short run's bookkeeping): V8 keeps
 * the getter of an object literal, and all it closes over, through the young collections until a
 * full one, so a literal with its own getter made every run's objects outlive it
 * (bench/HISTORY.md, _What kept every request's objects_).
 */
export class HandlerContext implements TaskContext {
  declare readonly taskId: string
  declare readonly contextId: string
  declare readonly text: string | undefined
  declare readonly message: Message | undefined
  declare readonly caller: CallerIdentity
  declare readonly extensions: readonly string[]
  declare readonly log: TaskContext['log']
  declare readonly artifact: TaskContext['artifact']
  declare readonly artifactStream: TaskContext['artifactStream']
  declare readonly ask: TaskContext['ask']
  declare readonly requireAuth: TaskContext['requireAuth']
  declare readonly fetchFile: TaskContext['fetchFile']
  readonly #run: { readonly signal: AbortSignal }

  constructor(run: { readonly signal: AbortSignal }, context: Omit<TaskContext, 'signal'>) {
    Object.assign(this, context)
    this.#run = run
  }

  /** Aborted when the task is cancelled, the server shuts down, or the run loses its lease. */
  get signal(): AbortSignal {
    return this.#run.signal
  }
}
