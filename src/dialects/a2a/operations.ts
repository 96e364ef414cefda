import type { AgentDefinition } from '../../agent/define.ts'
import type { CallerSignal } from '../../engine/caller-signal.ts'
import type { Caller, Engine } from '../../engine/engine.ts'
import { LIMITS } from '../../engine/limits.ts'
import type { CallerIdentity } from '../../model/caller.ts'
import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'
import { isUuid } from '../../model/ids.ts'
import { isTerminal } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import type { AgentMount, ServerContext } from '../../web/context.ts'
import { assertStreaming, pushEnabled } from './card.ts'
import { assertRequiredExtensions, type ExtensionNegotiation } from './extensions.ts'
import { toA2aPushConfig, toA2aTask } from './mapping.ts'
import { asReusedMessageId, isRepeatedTurn, newTaskKey } from './message-dedupe.ts'
import type { MountCards } from './mount-cards.ts'
import { notFound, refusedFollowUp, withTaskId } from './operation-errors.ts'
import { DEFAULT_INPUT_MODES, fromA2aMessage } from './parts.ts'
import { type A2aPushTarget, asV03PushTarget } from './push-target.ts'
import { type AcceptedMessage, answerMessage, streamMessage } from './replies.ts'
import { followedCopy, liveStream, type StreamItems, updates } from './stream.ts'
import { assertTenant } from './tenant.ts'
import {
  checkCancelTask,
  checkCreatePushConfig,
  checkExtendedCard,
  checkGetTask,
  checkListPushConfigs,
  checkListTasks,
  checkPushConfigId,
  checkSendMessage,
  checkSubscribe,
  present,
  type SendMessageRequest,
} from './wire/requests.ts'
import type {
  A2aAgentCard,
  A2aTask,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  TaskPushNotificationConfig,
} from './wire/shapes.ts'
import { fromA2aState } from './wire/states.ts'

/** A message taken in: the task, and on a new one the watch opened before it was created. */
type Accepted = Pick<AcceptedMessage, 'task' | 'watch'>

/** One request's caller as the engine sees it: whose new tasks are, and what it may read and act on. */
export interface A2aCallers {
  reader: Caller
  writer: Caller
}

/**
 * The eleven A2A operations for one mounted agent and one caller, shared by the JSON-RPC and REST bindings:
 * each takes the request message (ProtoJSON, unchecked), checks it, calls the engine and maps the
 * result. Streaming operations do all their checks before returning the stream, so a failure is
 * a plain error response rather than an SSE frame.
 */
export class A2aOperations {
  readonly #engine: Engine
  readonly #server: ServerContext
  readonly #mount: AgentMount
  readonly #agent: AgentDefinition
  readonly #callers: A2aCallers
  readonly #identity: CallerIdentity
  readonly #cards: MountCards
  readonly #extensions: ExtensionNegotiation
  readonly #v03: boolean

  /**
   * One request's operations, for its already authenticated caller (`identity`): the store scopes
   * every call by `callers`, its reach for reading and for acting.
   */
  constructor(options: {
    mount: AgentMount
    server: ServerContext
    cards: MountCards
    callers: A2aCallers
    identity: CallerIdentity
    /** What the request's A2A-Extensions activated. */
    extensions: ExtensionNegotiation
    /** Serving A2A 0.3 (converted to these 1.0 requests): push configs it registers get 0.3 bodies. */
    v03?: boolean
  }) {
    this.#server = options.server
    this.#engine = options.server.engine
    this.#mount = options.mount
    this.#agent = options.mount.agent.definition
    this.#callers = options.callers
    this.#identity = options.identity
    this.#cards = options.cards
    this.#extensions = options.extensions
    this.#v03 = options.v03 === true
  }

  get baseUrl(): string {
    return this.#mount.baseUrl()
  }

  async sendMessage(params: unknown, signal: CallerSignal): Promise<SendMessageResponse> {
    const request = checkSendMessage(params)
    const view = (task: Task) => this.#view(task, request.configuration?.historyLength)
    const returnImmediately = request.configuration?.returnImmediately === true
    // Two arguments, not `{ ...accepted, returnImmediately, view }`: on Node 20 a spread followed by
    // new members kept every send's objects past the young collections (bench/HISTORY.md, _What kept
    // every request's objects_).
    return answerMessage(await this.#accepted(request, signal), { returnImmediately, view })
  }

  async openMessageStream(params: unknown, signal: CallerSignal): Promise<StreamItems> {
    assertStreaming(this.#agent)
    const request = checkSendMessage(params)
    const { historyLength } = request.configuration ?? {}
    return streamMessage(await this.#accepted(request, signal), { baseUrl: this.baseUrl, historyLength })
  }

  async getTask(params: unknown): Promise<A2aTask> {
    const request = checkGetTask(params)
    this.#tenant(request.tenant, request.id)
    return this.#view(await this.#task(request.id), request.historyLength)
  }

  async listTasks(params: unknown): Promise<ListTasksResponse> {
    const request = checkListTasks(params)
    this.#tenant(request.tenant)
    const state = request.status === undefined ? undefined : fromA2aState(request.status)
    const pageSize = request.pageSize ?? LIMITS.defaultPageSize
    const page = await this.#engine.listTasks(this.#callers.reader, {
      pageSize,
      ...(present(request.contextId) && { contextId: request.contextId }),
      ...(state && { state }),
      ...(present(request.statusTimestampAfter) && {
        statusAfter: new Date(request.statusTimestampAfter!).toISOString(),
      }),
      ...(present(request.pageToken) && { pageToken: request.pageToken }),
    })
    return {
      tasks: page.tasks.map((task) =>
        toA2aTask(task, {
          baseUrl: this.baseUrl,
          historyLength: request.historyLength,
          includeArtifacts: request.includeArtifacts === true,
        }),
      ),
      nextPageToken: page.nextPageToken,
      pageSize,
      totalSize: page.totalSize,
    }
  }

  /** Idempotent: cancelling a task that is already CANCELED returns it. */
  async cancelTask(params: unknown): Promise<A2aTask> {
    const { id, tenant } = checkCancelTask(params)
    this.#tenant(tenant, id)
    if (!isUuid(id)) throw notFound(id)
    try {
      return this.#view(await this.#engine.cancel(this.#callers.writer, id).catch(withTaskId(id)))
    } catch (error) {
      if (
        isSwitchboardError(error) &&
        error.code === 'TASK_NOT_CANCELABLE' &&
        error.details?.state === 'CANCELLED'
      )
        return this.#view(await this.#task(id, this.#callers.writer))
      throw error
    }
  }

  /**
   * A terminal task can only be replayed (Last-Event-ID), not followed: nothing is left to see. No
   * `signal` where the stream writer ends the items when the client goes away (serveStream does).
   */
  async openSubscription(
    params: unknown,
    resumeAfter: number | undefined,
    signal?: CallerSignal,
  ): Promise<StreamItems> {
    assertStreaming(this.#agent)
    const { id, tenant } = checkSubscribe(params)
    this.#tenant(tenant, id)
    const task = await this.#task(id)
    if (resumeAfter === undefined && isTerminal(task.state)) {
      throw new SwitchboardError(
        'UNSUPPORTED_OPERATION',
        `task ${id} is ${task.state}: a terminal task has no updates to subscribe to (GetTask reads it; Last-Event-ID replays missed events)`,
        { taskId: id, state: task.state },
      )
    }
    const events = await this.#engine.followTask(this.#callers.reader, id, {
      afterSeq: resumeAfter ?? task.version,
      signal,
      known: followedCopy(task),
    })
    // Beyond the spec: a resume replays exactly the events after Last-Event-ID, with no Task
    // snapshot; each update shows the task as it was at that event.
    if (resumeAfter !== undefined) return updates(events, this.baseUrl)
    return liveStream({ snapshot: task, events, baseUrl: this.baseUrl })
  }

  async createPushConfig(params: unknown): Promise<TaskPushNotificationConfig> {
    this.#assertPush()
    const request = checkCreatePushConfig(params)
    const { writer } = this.#callers
    this.#tenant(request.tenant, request.taskId)
    await this.#task(request.taskId, writer)
    const target = await this.#pushTarget(request)
    const id = present(request.id)
    if (id !== undefined && (await this.#findPushConfig(request.taskId, id, writer)) === 'foreign') {
      throw new SwitchboardError('INVALID_REQUEST', `push notification config id ${id} is already in use`)
    }
    const config = await this.#engine.createPushConfig(writer, request.taskId, target, id)
    return toA2aPushConfig(config)!
  }

  async getPushConfig(params: unknown): Promise<TaskPushNotificationConfig> {
    this.#assertPush()
    const { taskId, id, tenant } = checkPushConfigId(params)
    this.#tenant(tenant, taskId)
    const found = await this.#findPushConfig(taskId, id, this.#callers.reader)
    if (typeof found !== 'object') {
      const message = `no push notification config ${id} on task ${taskId}`
      throw new SwitchboardError('PUSH_CONFIG_NOT_FOUND', message, { taskId, configId: id })
    }
    return found
  }

  async listPushConfigs(params: unknown): Promise<ListTaskPushNotificationConfigsResponse> {
    this.#assertPush()
    const { taskId, tenant } = checkListPushConfigs(params)
    this.#tenant(tenant, taskId)
    await this.#task(taskId)
    const configs = await this.#engine.listPushConfigs(this.#callers.reader, taskId)
    return {
      configs: configs.flatMap((config) => toA2aPushConfig(config) ?? []),
      nextPageToken: '',
    }
  }

  /** Idempotent: deleting a config that is gone (or is not an A2A one) succeeds if the task exists. */
  async deletePushConfig(params: unknown): Promise<void> {
    this.#assertPush()
    const { taskId, id, tenant } = checkPushConfigId(params)
    const { writer } = this.#callers
    this.#tenant(tenant, taskId)
    if (typeof (await this.#findPushConfig(taskId, id, writer)) === 'object') {
      await this.#engine.deletePushConfig(writer, taskId, id)
    }
  }

  getExtendedCard(params: unknown): Promise<A2aAgentCard> {
    this.#tenant(checkExtendedCard(params).tenant)
    return this.#cards.extendedFor(this.#identity)
  }

  /**
   * Turns a user message into a new task or the answer to a waiting one, idempotent by its messageId
   * unless the server turns that off (message-dedupe.ts): a repeat gets the task as it is now.
   */
  async #accept(request: SendMessageRequest, signal: CallerSignal): Promise<Accepted> {
    assertRequiredExtensions(this.#extensions)
    const wire = request.message
    const taskId = present(wire.taskId)
    const contextId = present(wire.contextId)
    this.#tenant(request.tenant, taskId)
    const push = request.configuration?.taskPushNotificationConfig
    if (push) this.#assertPush()
    const target = push ? await this.#pushTarget(push) : undefined
    const modes = this.#agent.inputModes?.length ? this.#agent.inputModes : DEFAULT_INPUT_MODES
    const dedupe = this.#server.a2aMessageIdDedupe
    if (taskId === undefined) {
      const { message, input, text } = fromA2aMessage(wire, modes)
      return this.#engine
        .submit({
          watch: { signal },
          caller: this.#identity,
          agent: this.#agent.slug,
          message,
          ...(dedupe && { idempotency: newTaskKey(this.#agent.slug, message, contextId) }),
          ...(input && { input }),
          ...(text !== undefined && { text }),
          ...(contextId !== undefined && { contextId }),
          ...(target && { pushTargets: [target] }),
          ...(request.metadata && { metadata: request.metadata }),
          ...(this.#extensions.activated.length > 0 && { extensions: [...this.#extensions.activated] }),
        })
        .catch(asReusedMessageId(wire.messageId))
    }
    const task = await this.#task(taskId, this.#callers.writer)
    if (contextId !== undefined && contextId !== task.contextId) {
      throw new SwitchboardError(
        'CONTEXT_MISMATCH',
        `message.contextId ${contextId} does not match the contextId of task ${taskId}`,
        { taskId, contextId: task.contextId },
      )
    }
    const { message, input, text } = fromA2aMessage(wire, modes)
    if (dedupe && isRepeatedTurn(task, message)) return { task }
    // The engine checks the task can take the answer, and records it with the push config in one transaction.
    const answered = this.#engine
      .provideInput({
        scope: this.#callers.writer,
        taskId,
        known: task,
        message,
        ...(input && { input }),
        ...(text !== undefined && { text }),
        ...(target && { pushTargets: [target] }),
      })
      .catch(refusedFollowUp(taskId))
    return { task: await answered }
  }

  #view(task: Task, historyLength?: number): A2aTask {
    return toA2aTask(task, { baseUrl: this.baseUrl, historyLength })
  }

  /**
   * Our task ids are UUIDs; anything else names no task (and never reaches a typed store column).
   * Read as `caller` (the reader unless the operation acts on the task).
   */
  #task(taskId: string, caller: Caller = this.#callers.reader): Promise<Task> {
    if (!isUuid(taskId)) return Promise.reject(notFound(taskId))
    return this.#engine.getTask(caller, taskId).catch(withTaskId(taskId))
  }

  /** A follow-up message acts on its task (the writer); a new task is the caller's own either way. */
  #actor(request: SendMessageRequest): Caller {
    return present(request.message.taskId) === undefined ? this.#callers.reader : this.#callers.writer
  }

  /** A message accepted (a new task, or the answer to one), and what answering it needs. */
  async #accepted(request: SendMessageRequest, signal: CallerSignal): Promise<AcceptedMessage> {
    const { task, watch } = await this.#accept(request, signal)
    const isNew = present(request.message.taskId) === undefined
    const awaitFirstMove = isNew && this.#agent.directReplies === true
    const actor = this.#actor(request)
    return { engine: this.#engine, actor, task, signal, awaitFirstMove, ...(watch && { watch }) }
  }

  /**
   * The request's `tenant` (body, query or the REST path prefix) selects the tenant; a caller may
   * use only its own, and an omitted one means it. Another tenant's task answers like a missing
   * task (`taskId` given: existence never leaks); any other operation is refused as forbidden.
   */
  #tenant(requested: string | undefined, taskId?: string): void {
    assertTenant(this.#identity.tenant, requested, taskId)
  }

  #assertPush(): void {
    if (!pushEnabled(this.#agent)) {
      throw new SwitchboardError(
        'PUSH_NOT_SUPPORTED',
        `agent ${this.#agent.slug} does not support push notifications (capabilities.pushNotifications is false)`,
      )
    }
  }

  /** The target of a webhook, once the outbound policy has accepted its URL. */
  async #pushTarget(config: TaskPushNotificationConfig): Promise<A2aPushTarget> {
    try {
      await this.#server.checkOutboundUrl(config.url)
    } catch (error) {
      if (isSwitchboardError(error) && error.code === 'URL_NOT_ALLOWED') {
        throw new SwitchboardError(
          'URL_NOT_ALLOWED',
          `the push notification url ${config.url} is refused by this server's outbound policy: ${error.message}`,
          { url: config.url },
        )
      }
      throw error
    }
    const target: A2aPushTarget = { kind: 'a2a', url: config.url, artifacts: true }
    if (present(config.token) !== undefined) target.token = config.token!
    if (config.authentication) {
      target.authentication = { scheme: config.authentication.scheme }
      if (config.authentication.credentials !== undefined)
        target.authentication.credentials = config.authentication.credentials
    }
    return this.#v03 ? asV03PushTarget(target) : target
  }

  /** An A2A config of the task; 'foreign' when the id belongs to a non-A2A target; undefined when none. */
  async #findPushConfig(
    taskId: string,
    id: string,
    caller: Caller,
  ): Promise<TaskPushNotificationConfig | 'foreign' | undefined> {
    await this.#task(taskId, caller)
    try {
      const config = await this.#engine.getPushConfig(caller, taskId, id)
      return toA2aPushConfig(config) ?? 'foreign'
    } catch (error) {
      if (isSwitchboardError(error) && error.code === 'PUSH_CONFIG_NOT_FOUND') return undefined
      throw error
    }
  }
}
