import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { SwitchboardError } from '../../../model/errors.ts'
import { compileSchema } from '../../../schema/json-schema.ts'
import { enumOf } from '../../../schema/typebox.ts'
import { protoJsonReader } from './read.ts'
import { A2aMessage, A2aPart, Id, Strings, Struct, TaskPushNotificationConfig } from './shapes.ts'
import { A2A_TASK_STATES } from './states.ts'

/**
 * The A2A request messages both bindings receive, checked once against JSON Schemas compiled at
 * start-up. A violation is INVALID_REQUEST with one field violation per problem, which the error
 * table turns into InvalidParams (-32602 / 400) with a google.rpc.BadRequest. Before the check,
 * `read.ts` applies the ProtoJSON input rules (proto names, nulls, unknown fields ignored), so
 * the schemas name every field once, in lowerCamelCase; `tenant` is accepted and ignored because
 * our interfaces declare none.
 */
const Tenant = Type.Optional(Type.String())
const HistoryLength = Type.Integer({ minimum: 0, maximum: 2_147_483_647 })

/** A client's message: always from the user (by name, or by its enum number). */
export const InboundMessage = Type.Object({
  ...A2aMessage.properties,
  role: enumOf(['ROLE_USER', 1]),
  parts: Type.Array(A2aPart, { minItems: 1 }),
})
export type InboundMessage = Static<typeof InboundMessage>

export const SendMessageRequest = Type.Object({
  tenant: Tenant,
  message: InboundMessage,
  configuration: Type.Optional(
    Type.Object({
      acceptedOutputModes: Type.Optional(Strings),
      taskPushNotificationConfig: Type.Optional(TaskPushNotificationConfig),
      historyLength: Type.Optional(HistoryLength),
      returnImmediately: Type.Optional(Type.Boolean()),
    }),
  ),
  metadata: Type.Optional(Struct),
})
export type SendMessageRequest = Static<typeof SendMessageRequest>

export const GetTaskRequest = Type.Object({
  tenant: Tenant,
  id: Id,
  historyLength: Type.Optional(HistoryLength),
})
export type GetTaskRequest = Static<typeof GetTaskRequest>

export const ListTasksRequest = Type.Object({
  tenant: Tenant,
  contextId: Type.Optional(Type.String()),
  status: Type.Optional(enumOf([...A2A_TASK_STATES, ...A2A_TASK_STATES.map((_, i) => i)])),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  pageToken: Type.Optional(Type.String()),
  historyLength: Type.Optional(HistoryLength),
  statusTimestampAfter: Type.Optional(Type.String({ format: 'date-time' })),
  includeArtifacts: Type.Optional(Type.Boolean()),
})
export type ListTasksRequest = Static<typeof ListTasksRequest>

/** CancelTask and SubscribeToTask. */
export const TaskIdRequest = Type.Object({ tenant: Tenant, id: Id, metadata: Type.Optional(Struct) })
export type TaskIdRequest = Static<typeof TaskIdRequest>

/** CreateTaskPushNotificationConfig: the config, whose task id is required here. */
export const CreatePushConfigRequest = Type.Object({ ...TaskPushNotificationConfig.properties, taskId: Id })

/** Get and Delete TaskPushNotificationConfig. */
export const PushConfigRequest = Type.Object({ tenant: Tenant, taskId: Id, id: Id })
export type PushConfigRequest = Static<typeof PushConfigRequest>

export const ListPushConfigsRequest = Type.Object({
  tenant: Tenant,
  taskId: Id,
  pageSize: Type.Optional(Type.Integer({ minimum: 0 })),
  pageToken: Type.Optional(Type.String()),
})

export const ExtendedCardRequest = Type.Object({ tenant: Tenant })

/**
 * Compiles a request schema; the check reads the message by ProtoJSON's rules (unless `protoJson`
 * is false: A2A 0.3 JSON-RPC params are plain JSON, read as sent), then throws INVALID_REQUEST
 * naming every violated field, or returns the message as the schema names it.
 */
export const requestCheck = <S extends TSchema>(
  schema: S,
  what: string,
  options: { protoJson?: boolean } = {},
): ((value: unknown) => Static<S>) => {
  const validate = compileSchema(schema)
  const read =
    options.protoJson === false
      ? (value: unknown) => ({ message: value, violations: [] })
      : protoJsonReader(schema)
  return (value) => {
    const { message, violations: naming } = read(value ?? {})
    const violations = [...naming, ...validate(message, '')]
    if (violations.length > 0) {
      throw new SwitchboardError(
        'INVALID_REQUEST',
        `invalid ${what}: ${violations.map((v) => v.description).join('; ')}`,
        { violations },
      )
    }
    return message as Static<S>
  }
}

export const checkSendMessage = requestCheck(SendMessageRequest, 'SendMessageRequest')
export const checkGetTask = requestCheck(GetTaskRequest, 'GetTaskRequest')
export const checkListTasks = requestCheck(ListTasksRequest, 'ListTasksRequest')
export const checkCancelTask = requestCheck(TaskIdRequest, 'CancelTaskRequest')
export const checkSubscribe = requestCheck(TaskIdRequest, 'SubscribeToTaskRequest')
export const checkCreatePushConfig = requestCheck(CreatePushConfigRequest, 'TaskPushNotificationConfig')
export const checkPushConfigId = requestCheck(PushConfigRequest, 'push notification config request')
export const checkListPushConfigs = requestCheck(
  ListPushConfigsRequest,
  'ListTaskPushNotificationConfigsRequest',
)
export const checkExtendedCard = requestCheck(ExtendedCardRequest, 'GetExtendedAgentCardRequest')

/** ProtoJSON treats an empty string as an absent field. */
export const present = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value
