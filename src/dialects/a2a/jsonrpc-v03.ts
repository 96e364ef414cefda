import type { CallerSignal } from '../../engine/caller-signal.ts'
import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'
import { isTerminal, type TaskState } from '../../model/states.ts'
import { A2A_ERRORS, type A2aErrorKind, type A2aFailure } from './errors.ts'
import type { A2aOperations } from './operations.ts'
import { endsStream } from './stream.ts'
import type { StreamItem } from './wire/shapes.ts'
import { fromA2aState } from './wire/states.ts'
import {
  fromV03PushConfigId,
  fromV03SendParams,
  fromV03TaskId,
  fromV03TaskPushConfig,
  fromV03TaskQuery,
} from './wire/v03/from-v03.ts'
import {
  checkV03DeletePushConfig,
  checkV03GetPushConfig,
  checkV03SendParams,
  checkV03TaskId,
  checkV03TaskPushConfig,
  checkV03TaskQuery,
} from './wire/v03/requests.ts'
import type { V03JsonRpcError, V03StreamEvent } from './wire/v03/shapes.ts'
import { toV03SendResult, toV03StreamEvent, toV03Task, toV03TaskPushConfig } from './wire/v03/to-v03.ts'

/**
 * The A2A 0.3 JSON-RPC methods, served on the same endpoint as 1.0 when a request negotiates 0.3
 * (no A2A-Version header): each checks its 0.3 params against the 0.3 shapes, converts them to the
 * 1.0 request, lets the 1.0 operation do all the work (auth scope, tenancy, idempotency,
 * extensions) and converts the answer back.
 */

type Unary = (ops: A2aOperations, params: unknown, signal: () => CallerSignal) => Promise<unknown>
export type V03Streaming = (
  ops: A2aOperations,
  params: unknown,
  options: { signal: CallerSignal; resumeAfter: number | undefined },
) => Promise<AsyncIterableIterator<V03StreamItem>>

/** One 0.3 stream event and, for items that end an engine event, its sequence (SSE `id:`). */
export interface V03StreamItem {
  id?: number
  event: V03StreamEvent
}

/**
 * tasks/pushNotificationConfig/get without a config id (0.3 allows bare TaskIdParams, from when a
 * task had one config): the task's first config.
 */
const getPushConfig: Unary = async (ops, params) => {
  const { taskId, id } = fromV03PushConfigId(checkV03GetPushConfig(params))
  if (id !== undefined) return toV03TaskPushConfig(await ops.getPushConfig({ taskId, id }))
  const [first] = (await ops.listPushConfigs({ taskId })).configs
  if (!first) {
    throw new SwitchboardError('PUSH_CONFIG_NOT_FOUND', `task ${taskId} has no push notification config`, {
      taskId,
    })
  }
  return toV03TaskPushConfig(first)
}

export const V03_UNARY: Readonly<Record<string, Unary>> = {
  'message/send': async (ops, params, signal) =>
    toV03SendResult(await ops.sendMessage(fromV03SendParams(checkV03SendParams(params)), signal())),
  'tasks/get': async (ops, params) =>
    toV03Task(await ops.getTask(fromV03TaskQuery(checkV03TaskQuery(params)))),
  'tasks/cancel': async (ops, params) =>
    toV03Task(await ops.cancelTask(fromV03TaskId(checkV03TaskId(params)))),
  'tasks/pushNotificationConfig/set': async (ops, params) =>
    toV03TaskPushConfig(await ops.createPushConfig(fromV03TaskPushConfig(checkV03TaskPushConfig(params)))),
  'tasks/pushNotificationConfig/get': getPushConfig,
  // 0.3 answers with a bare array, and has no paging.
  'tasks/pushNotificationConfig/list': async (ops, params) => {
    const { id } = checkV03TaskId(params)
    return (await ops.listPushConfigs({ taskId: id })).configs.map(toV03TaskPushConfig)
  },
  'tasks/pushNotificationConfig/delete': async (ops, params) => {
    const { taskId, id } = fromV03PushConfigId(checkV03DeletePushConfig(params))
    await ops.deletePushConfig({ taskId, id })
    return null
  },
  // The card is the one both versions read. 0.3 has its own error for "no extended card".
  'agent/getAuthenticatedExtendedCard': (ops) =>
    ops.getExtendedCard({}).catch((error: unknown) => {
      if (!isSwitchboardError(error) || error.code !== 'UNSUPPORTED_OPERATION') throw error
      throw new SwitchboardError('EXTENDED_CARD_NOT_CONFIGURED', error.message)
    }),
}

export const V03_STREAMING: Readonly<Record<string, V03Streaming>> = {
  'message/stream': async (ops, params, { signal }) =>
    toV03Stream(await ops.openMessageStream(fromV03SendParams(checkV03SendParams(params)), signal)),
  // A finished task is its Task, and the stream ends (1.0 refuses: nothing is left to follow).
  'tasks/resubscribe': async (ops, params, { signal, resumeAfter }) => {
    const request = fromV03TaskId(checkV03TaskId(params))
    try {
      return toV03Stream(await ops.openSubscription(request, resumeAfter, signal))
    } catch (error) {
      const refused = isSwitchboardError(error) && error.code === 'UNSUPPORTED_OPERATION'
      const state = refused ? error.details?.state : undefined
      if (typeof state !== 'string' || !isTerminal(state as TaskState)) throw error
      return only({ event: toV03Task(await ops.getTask(request)) })
    }
  },
}

async function* only(item: V03StreamItem): AsyncGenerator<V03StreamItem> {
  yield item
}

/** A stream whose first step fails: rendered as the stream's error event. */
export const failedStream = (error: unknown): AsyncIterableIterator<never> => ({
  next: () => Promise.reject(error),
  [Symbol.asyncIterator]() {
    return this
  },
})

export const isV03Method = (method: string): boolean =>
  Object.hasOwn(V03_UNARY, method) || Object.hasOwn(V03_STREAMING, method)

/** The 1.0 method of each 0.3 one, for the hint to a client that asked for 1.0 by the wrong name. */
export const V10_METHOD_OF: Readonly<Record<string, string>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
}

/**
 * The 0.3 stream ends where 1.0's does, and also at auth-required (the credential comes out of
 * band, and a 0.3 client stops at the update marked `final`: "the final event in the stream for
 * this interaction"; the server closes the connection after it, spec §9.3).
 */
const endsV03Stream = (response: StreamItem['response']): boolean => {
  if (!('statusUpdate' in response)) return false
  const state = fromA2aState(response.statusUpdate.status.state)
  return state !== undefined && (endsStream(state) || state === 'AUTH_REQUIRED')
}

async function* toV03Stream(items: AsyncIterable<StreamItem>): AsyncGenerator<V03StreamItem> {
  for await (const item of items) {
    const final = endsV03Stream(item.response)
    const event = toV03StreamEvent(item.response, final)
    yield item.id === undefined ? { event } : { id: item.id, event }
    if (final) return
  }
}

/**
 * The 0.3 code of each A2A error: 0.3 has -32001…-32007 and the JSON-RPC ones. 1.0's later
 * errors become InvalidRequest (the request cannot be served as sent; `data.reason` says why);
 * the server-defined codes (-32000 unauthenticated, -32020 forbidden, -32029 rate limited) are
 * in the range JSON-RPC reserves for servers in both versions, so they stay.
 */
const V03_CODE: Partial<Record<A2aErrorKind, number>> = {
  ExtensionSupportRequiredError: -32600,
  VersionNotSupportedError: -32600,
}

/** The 0.3 JSON-RPC error object: `data` is an object with the reason, the metadata and any field violations. */
export const v03JsonRpcError = (failure: A2aFailure): V03JsonRpcError => {
  const data: Record<string, unknown> = { reason: A2A_ERRORS[failure.kind].reason, ...failure.metadata }
  if (failure.violations) {
    data.fieldViolations = failure.violations.map(({ field, description }) => ({ field, description }))
  }
  return { code: V03_CODE[failure.kind] ?? A2A_ERRORS[failure.kind].jsonRpc, message: failure.message, data }
}
