import type { TSchema } from '@sinclair/typebox'
import { requestCheck } from '../requests.ts'
import {
  V03DeletePushConfigParams,
  V03GetPushConfigParams,
  V03MessageSendParams,
  V03TaskIdParams,
  V03TaskPushConfig,
  V03TaskQueryParams,
} from './shapes.ts'

/**
 * The 0.3 request params, checked against the 0.3 shapes (compiled once) before they are converted:
 * a bad request's error names the 0.3 fields the client sent (`/message/parts/0/kind`), never the
 * 1.0 fields it was converted to. A violation is INVALID_REQUEST, which is InvalidParams (-32602).
 */
const check = <S extends TSchema>(schema: S, what: string) => requestCheck(schema, what, { protoJson: false })

export const checkV03SendParams = check(V03MessageSendParams, 'MessageSendParams')
export const checkV03TaskQuery = check(V03TaskQueryParams, 'TaskQueryParams')
export const checkV03TaskId = check(V03TaskIdParams, 'TaskIdParams')
export const checkV03TaskPushConfig = check(V03TaskPushConfig, 'TaskPushNotificationConfig')
export const checkV03GetPushConfig = check(V03GetPushConfigParams, 'GetTaskPushNotificationConfigParams')
export const checkV03DeletePushConfig = check(
  V03DeletePushConfigParams,
  'DeleteTaskPushNotificationConfigParams',
)
