/**
 * Which protocol operation an inbound HTTP request is, from its route: the name of its span
 * (`a2a.SendMessage`, `clawpedia.create`) and the dialect, binding and version attributes.
 */
export interface InboundOperation {
  dialect: 'a2a' | 'clawpedia' | 'switchboard'
  /** The operation in the dialect's own terms (A2A: the 1.0 method name, or the 0.3 one on 0.3). */
  operation: string
  /** A2A: `JSONRPC` or `HTTP+JSON`; Clawpedia: `HTTP`. */
  binding: string
  /** The protocol version when the route fixes it (0.3 REST); otherwise read from the request. */
  version?: string
}

// A2A HTTP+JSON: [method, last route segments] → operation (1.0 names; 0.3 REST uses the same shapes).
const A2A_REST: readonly [string, RegExp, string][] = [
  ['POST', /\/message::send$/, 'SendMessage'],
  ['POST', /\/message::stream$/, 'SendStreamingMessage'],
  ['GET', /\/tasks$/, 'ListTasks'],
  ['GET', /\/tasks\/:target$/, 'GetTask'],
  ['POST', /\/tasks\/:target$/, 'TaskAction'],
  ['POST', /\/pushNotificationConfigs$/, 'CreateTaskPushNotificationConfig'],
  ['GET', /\/pushNotificationConfigs$/, 'ListTaskPushNotificationConfigs'],
  ['GET', /\/pushNotificationConfigs\/:configId$/, 'GetTaskPushNotificationConfig'],
  ['DELETE', /\/pushNotificationConfigs\/:configId$/, 'DeleteTaskPushNotificationConfig'],
  ['GET', /\/(extendedAgentCard|card)$/, 'GetExtendedAgentCard'],
]

const CLAWPEDIA: readonly [string, RegExp, string][] = [
  ['POST', /\/tasks$/, 'create'],
  ['GET', /\/tasks\/:taskId$/, 'get'],
  ['POST', /\/tasks\/:taskId\/cancel$/, 'cancel'],
  ['POST', /\/tasks\/:taskId\/input$/, 'input'],
  ['GET', /\/tasks\/:taskId\/artifacts$/, 'artifacts'],
  ['GET', /\/tasks\/:taskId\/stream$/, 'stream'],
  ['GET', /\/artifacts\/:artifactId\/content$/, 'artifact-content'],
  ['GET', /\/agent-card\.json$/, 'card'],
]

const match = (table: readonly [string, RegExp, string][], method: string, route: string) =>
  table.find(([m, pattern]) => m === method && pattern.test(route))?.[2]

/** A `POST /tasks/{id}:cancel` or `:subscribe` names its operation in the path's last segment. */
const taskAction = (url: string): string =>
  /:subscribe(?:\?|$)/.test(url) ? 'SubscribeToTask' : 'CancelTask'

/**
 * The operation of a request to `route` (the route pattern, prefix included), `url` (as sent) and
 * a JSON-RPC body's `method` when there is one.
 */
export const inboundOperationOf = (
  method: string,
  route: string,
  url: string,
  rpcMethod: unknown,
): InboundOperation => {
  if (route.includes('/a2a/jsonrpc'))
    return {
      dialect: 'a2a',
      operation: typeof rpcMethod === 'string' ? rpcMethod : 'unknown',
      binding: 'JSONRPC',
      ...(typeof rpcMethod === 'string' && rpcMethod.includes('/') && { version: '0.3' }),
    }
  if (route.includes('/a2a/rest')) {
    const found = match(A2A_REST, method, route)
    const operation = found === 'TaskAction' ? taskAction(url) : (found ?? `${method} ${route}`)
    return {
      dialect: 'a2a',
      operation,
      binding: 'HTTP+JSON',
      ...(route.includes('/a2a/rest/v1/') && { version: '0.3' }),
    }
  }
  if (route.endsWith('/.well-known/agent-card.json'))
    return { dialect: 'a2a', operation: 'GetAgentCard', binding: 'HTTP+JSON' }
  const clawpedia = match(CLAWPEDIA, method, route)
  if (clawpedia !== undefined && !route.startsWith('/admin'))
    return { dialect: 'clawpedia', operation: clawpedia, binding: 'HTTP' }
  return { dialect: 'switchboard', operation: `${method} ${route}`, binding: 'HTTP' }
}

const AGENT_PATH = /^\/agents\/([^/?]+)/

/** The agent a path names (`/agents/{slug}/…`); the default agent's routes have no prefix. */
export const agentOfPath = (path: string, defaultAgent: string): string =>
  AGENT_PATH.exec(path)?.[1] ?? defaultAgent

/** The task a route's parameters name: Clawpedia's `:taskId`, or A2A REST's `:target` (`{id}:cancel`). */
export const taskIdOfParams = (params: unknown): string | undefined => {
  const named = params as { taskId?: string; target?: string } | undefined
  return (named?.taskId ?? named?.target?.split(':')[0]) || undefined
}
