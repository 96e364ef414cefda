import type { Static, TSchema } from '@sinclair/typebox'
import { SwitchboardError } from '../../../../model/errors.ts'
import { isObject } from '../../../../model/json.ts'
import { requestCheck } from '../requests.ts'
import type { A2aAgentCard, TaskPushNotificationConfig } from '../shapes.ts'
import { fromV03PushConfig } from './from-v03.ts'
import { messageFromV03, messageToV03 } from './rest-objects.ts'
import {
  type V03RestAgentCard,
  V03RestCreatePushConfigRequest,
  type V03RestSendMessageConfiguration,
  V03RestSendMessageRequest,
  type V03RestTaskPushNotificationConfig,
  V03RestTaskPushNotificationConfig as V03TaskPushConfigShape,
} from './rest-shapes.ts'
import { toV03PushConfig } from './to-v03.ts'

/**
 * The 0.3 HTTP+JSON requests ⇄ the 1.0 request messages `A2aOperations` takes. A 0.3 body is
 * checked against its own schema first, so a violation names the field the client sent
 * (`/message/content/0`); the 1.0 message it becomes is checked again by the operation.
 */

/** A 1.0 request message, or a 0.3 body, before (or as well as) its schema check. */
type Wire = Record<string, unknown>

/** The 1.0 request check (ProtoJSON names, then the schema), for a body that must be an object. */
const check = <S extends TSchema>(schema: S, what: string): ((value: unknown) => Static<S>) => {
  const checked = requestCheck(schema, what)
  return (value) => {
    if (!isObject(value)) {
      throw new SwitchboardError('INVALID_REQUEST', `the body must be a JSON object (the A2A 0.3 ${what})`)
    }
    return checked(value)
  }
}

const checkSend = check(V03RestSendMessageRequest, 'SendMessageRequest')
const checkCreatePush = check(V03RestCreatePushConfigRequest, 'CreateTaskPushNotificationConfigRequest')
const checkTaskPushConfig = check(V03TaskPushConfigShape, 'TaskPushNotificationConfig')

/**
 * The 1.0 SendMessageRequest of a 0.3 one. `blocking` follows the proto (false when the
 * configuration leaves it out, as sdk 0.3.14's server reads it); with no configuration at all the
 * request blocks, the 0.3 default. A `historyLength` of 0 is the proto's "no limit".
 */
export const sendRequestFromV03 = (body: unknown): Wire => {
  const request = checkSend(body)
  const configuration: Wire = {}
  const given: V03RestSendMessageConfiguration | undefined = request.configuration
  configuration.returnImmediately = given !== undefined && given.blocking !== true
  if (given?.acceptedOutputModes?.length) configuration.acceptedOutputModes = given.acceptedOutputModes
  if (given?.historyLength) configuration.historyLength = given.historyLength
  if (given?.pushNotification)
    configuration.taskPushNotificationConfig = fromV03PushConfig(
      given.pushNotification,
      undefined,
      '/configuration/pushNotification',
    )
  return {
    message: messageFromV03(request.message),
    configuration,
    ...(request.metadata && { metadata: request.metadata }),
  }
}

/** The config id in a resource name `tasks/{taskId}/pushNotificationConfigs/{configId}`, if it names one. */
const configIdOfName = (name: string | undefined): string | undefined =>
  /^tasks\/[^/]+\/pushNotificationConfigs\/([^/]+)$/.exec(name ?? '')?.[1]

/**
 * The 1.0 CreateTaskPushNotificationConfig request of a 0.3 body for task `taskId` (from the
 * path, which wins over any name in the body): the CreateTaskPushNotificationConfigRequest
 * (`{config}`, the spec's and sdk 0.3.14's server's shape) or the bare TaskPushNotificationConfig
 * (the proto's HTTP rule, sdk 0.3.14's client). The config id is `configId`, else the
 * `pushNotificationConfig.id`, else the last segment of its `name`; none lets the server choose.
 */
export const createPushConfigFromV03 = (body: unknown, taskId: string): Wire => {
  let config: V03RestTaskPushNotificationConfig
  let configId: string | undefined
  if (isObject(body) && isObject(body.config)) {
    const request = checkCreatePush(body)
    config = request.config
    configId = request.configId || undefined
  } else {
    config = checkTaskPushConfig(body)
  }
  const flat = fromV03PushConfig(config.pushNotificationConfig)
  const id = configId ?? flat.id ?? configIdOfName(config.name)
  return { ...flat, ...(id && { id }), taskId }
}

/** A 1.0 push config as 0.3 shows it: wrapped, named by its resource name. */
export const pushConfigToV03 = (config: TaskPushNotificationConfig): V03RestTaskPushNotificationConfig => {
  return {
    name: `tasks/${config.taskId ?? ''}/pushNotificationConfigs/${config.id ?? ''}`,
    pushNotificationConfig: toV03PushConfig(config),
  }
}

/**
 * The 0.3 SendMessageRequest of a 1.0 one (what a client built for 1.0): `parts` become
 * `content`, `returnImmediately` becomes `blocking` (written even when false, so a server that
 * reads an absent one as blocking does not wait), the push config is wrapped the 0.3 way.
 */
export const sendRequestToV03 = (request: Wire): Wire => {
  const message = request.message as Parameters<typeof messageToV03>[0]
  const body: Wire = { message: messageToV03(message) }
  const given = isObject(request.configuration) ? request.configuration : {}
  const configuration: Wire = { blocking: given.returnImmediately !== true }
  if (Array.isArray(given.acceptedOutputModes)) configuration.acceptedOutputModes = given.acceptedOutputModes
  if (typeof given.historyLength === 'number') configuration.historyLength = given.historyLength
  if (isObject(given.taskPushNotificationConfig)) {
    const push = pushConfigToV03(given.taskPushNotificationConfig as TaskPushNotificationConfig)
    configuration.pushNotification = push.pushNotificationConfig
  }
  body.configuration = configuration
  if (isObject(request.metadata)) body.metadata = request.metadata
  return body
}

/**
 * A security scheme in the proto's shape only: its oneof wrapper (`httpAuthSecurityScheme`, …),
 * without the OpenAPI-form keys a card serving both versions adds beside it (card-v03.ts), which
 * are not fields of the proto message.
 */
const protoScheme = (scheme: Wire): Wire =>
  Object.fromEntries(Object.entries(scheme).filter(([key]) => key.endsWith('SecurityScheme')))

/**
 * The 0.3 AgentCard of a 1.0 one. A card that already carries the 0.3 fields (`url`,
 * `preferredTransport`, `additionalInterfaces`) keeps them; otherwise they are derived from its
 * interfaces, the 0.3 ones first. Security schemes and requirements take the proto shape, which
 * both versions share (not the OpenAPI one of the 0.3 JSON card). The
 * card's signatures are left out: they sign the 1.0 card, not this one.
 */
export const cardToV03 = (card: A2aAgentCard & Partial<V03RestAgentCard>): V03RestAgentCard => {
  const v03 = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith('0.3'))
  const interfaces = v03.length > 0 ? v03 : card.supportedInterfaces
  const derived = interfaces.map((i) => ({ url: i.url, transport: i.protocolBinding }))
  const main = derived[0]
  const wire: V03RestAgentCard = {
    protocolVersion: card.protocolVersion ?? '0.3.0',
    name: card.name,
    description: card.description,
    url: card.url ?? main?.url ?? '',
    preferredTransport: card.preferredTransport ?? main?.transport ?? 'JSONRPC',
    additionalInterfaces: card.additionalInterfaces ?? derived,
    version: card.version,
    capabilities: {
      ...(card.capabilities.streaming !== undefined && { streaming: card.capabilities.streaming }),
      ...(card.capabilities.pushNotifications !== undefined && {
        pushNotifications: card.capabilities.pushNotifications,
      }),
      ...(card.capabilities.extensions?.length && { extensions: card.capabilities.extensions }),
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
  }
  if (card.provider) wire.provider = card.provider
  if (card.documentationUrl) wire.documentationUrl = card.documentationUrl
  if (card.securitySchemes) {
    wire.securitySchemes = Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => [name, protoScheme(scheme)]),
    )
  }
  if (card.securityRequirements) wire.security = card.securityRequirements
  return wire
}
