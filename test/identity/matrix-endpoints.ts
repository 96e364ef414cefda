/** The endpoints of the identity matrix: every route of every dialect that touches a task. */
import { randomUUID } from 'node:crypto'
import { type Answer, call, type Target } from './matrix-helpers.ts'

export type Dialect = 'clawpedia' | 'jsonrpc' | 'rest'

/**
 * How a cell may use the task: `read` (widened by tasks:read:tenant), `write` (by
 * tasks:write:tenant; an owner's successful write gets a fresh task of its own), `caller` (needs
 * only an authenticated caller and answers it alike whoever it is: creating, the extended card).
 */
export type Access = 'read' | 'write' | 'caller'

export interface Endpoint {
  name: string
  dialect: Dialect
  access: Access
  /** The success status of this endpoint. */
  ok: number
  call(base: string, headers: Record<string, string>, target: Target): Promise<Answer>
}

const rpc =
  (method: string, params: (t: Target) => unknown): Endpoint['call'] =>
  (base, headers, target) =>
    call(`${base}/a2a/jsonrpc`, { headers, body: { jsonrpc: '2.0', id: 1, method, params: params(target) } })

const message = (text: string, taskId?: string) => ({
  message: {
    role: 'ROLE_USER',
    messageId: randomUUID(),
    parts: [{ text }],
    ...(taskId !== undefined && { taskId }),
  },
})

const PUSH_URL = 'http://127.0.0.1:9/hook'

/** Every endpoint of every dialect that touches tasks, under the vault agent's base. */
export const ENDPOINTS: Endpoint[] = [
  // Clawpedia REST + SSE
  {
    name: 'create',
    dialect: 'clawpedia',
    access: 'caller',
    ok: 202,
    call: (b, h) => call(`${b}/tasks`, { headers: h, body: { input: { secret: 'x' } } }),
  },
  {
    name: 'get',
    dialect: 'clawpedia',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/tasks/${t.taskId}`, { headers: h }),
  },
  {
    name: 'artifacts',
    dialect: 'clawpedia',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/tasks/${t.taskId}/artifacts`, { headers: h }),
  },
  {
    name: 'artifact content',
    dialect: 'clawpedia',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/artifacts/${t.artifactId}/content`, { headers: h }),
  },
  {
    name: 'stream',
    dialect: 'clawpedia',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/tasks/${t.taskId}/stream`, { headers: h }),
  },
  {
    name: 'input',
    dialect: 'clawpedia',
    access: 'write',
    ok: 202,
    call: (b, h, t) => call(`${b}/tasks/${t.taskId}/input`, { headers: h, body: { input: { more: 1 } } }),
  },
  {
    name: 'cancel',
    dialect: 'clawpedia',
    access: 'write',
    ok: 202,
    call: (b, h, t) => call(`${b}/tasks/${t.taskId}/cancel`, { headers: h, method: 'POST' }),
  },
  // A2A JSON-RPC: the eleven methods
  {
    name: 'SendMessage (new task)',
    dialect: 'jsonrpc',
    access: 'caller',
    ok: 200,
    call: rpc('SendMessage', () => ({
      ...message('{"secret":"x"}'),
      configuration: { returnImmediately: true },
    })),
  },
  {
    name: 'SendMessage (answer)',
    dialect: 'jsonrpc',
    access: 'write',
    ok: 200,
    call: rpc('SendMessage', (t) => ({
      ...message('{"more":1}', t.taskId),
      configuration: { returnImmediately: true },
    })),
  },
  {
    name: 'SendStreamingMessage (answer)',
    dialect: 'jsonrpc',
    access: 'write',
    ok: 200,
    call: rpc('SendStreamingMessage', (t) => message('{"more":1}', t.taskId)),
  },
  {
    name: 'GetTask',
    dialect: 'jsonrpc',
    access: 'read',
    ok: 200,
    call: rpc('GetTask', (t) => ({ id: t.taskId })),
  },
  {
    name: 'CancelTask',
    dialect: 'jsonrpc',
    access: 'write',
    ok: 200,
    call: rpc('CancelTask', (t) => ({ id: t.taskId })),
  },
  {
    name: 'SubscribeToTask',
    dialect: 'jsonrpc',
    access: 'read',
    ok: 200,
    call: rpc('SubscribeToTask', (t) => ({ id: t.taskId })),
  },
  {
    name: 'CreateTaskPushNotificationConfig',
    dialect: 'jsonrpc',
    access: 'write',
    ok: 200,
    call: rpc('CreateTaskPushNotificationConfig', (t) => ({ taskId: t.taskId, url: PUSH_URL })),
  },
  {
    name: 'GetTaskPushNotificationConfig',
    dialect: 'jsonrpc',
    access: 'read',
    ok: 200,
    call: rpc('GetTaskPushNotificationConfig', (t) => ({ taskId: t.taskId, id: t.configId })),
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    dialect: 'jsonrpc',
    access: 'read',
    ok: 200,
    call: rpc('ListTaskPushNotificationConfigs', (t) => ({ taskId: t.taskId })),
  },
  {
    name: 'DeleteTaskPushNotificationConfig',
    dialect: 'jsonrpc',
    access: 'write',
    ok: 200,
    call: rpc('DeleteTaskPushNotificationConfig', (t) => ({ taskId: t.taskId, id: t.configId })),
  },
  {
    name: 'GetExtendedAgentCard',
    dialect: 'jsonrpc',
    access: 'caller',
    ok: 200,
    call: rpc('GetExtendedAgentCard', () => ({})),
  },
  // A2A HTTP+JSON: every route, subscribe both ways
  {
    name: 'POST message:send (new task)',
    dialect: 'rest',
    access: 'caller',
    ok: 200,
    call: (b, h) =>
      call(`${b}/a2a/rest/message:send`, {
        headers: h,
        body: { ...message('{"secret":"x"}'), configuration: { returnImmediately: true } },
      }),
  },
  {
    name: 'POST message:stream (answer)',
    dialect: 'rest',
    access: 'write',
    ok: 200,
    call: (b, h, t) =>
      call(`${b}/a2a/rest/message:stream`, { headers: h, body: message('{"more":1}', t.taskId) }),
  },
  {
    name: 'GET tasks/{id}',
    dialect: 'rest',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/a2a/rest/tasks/${t.taskId}`, { headers: h }),
  },
  {
    name: 'POST tasks/{id}:cancel',
    dialect: 'rest',
    access: 'write',
    ok: 200,
    call: (b, h, t) => call(`${b}/a2a/rest/tasks/${t.taskId}:cancel`, { headers: h, body: {} }),
  },
  {
    name: 'POST tasks/{id}:subscribe',
    dialect: 'rest',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/a2a/rest/tasks/${t.taskId}:subscribe`, { headers: h, body: {} }),
  },
  {
    name: 'GET tasks/{id}:subscribe',
    dialect: 'rest',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/a2a/rest/tasks/${t.taskId}:subscribe`, { headers: h }),
  },
  {
    name: 'POST pushNotificationConfigs',
    dialect: 'rest',
    access: 'write',
    ok: 200,
    call: (b, h, t) =>
      call(`${b}/a2a/rest/tasks/${t.taskId}/pushNotificationConfigs`, {
        headers: h,
        body: { url: PUSH_URL },
      }),
  },
  {
    name: 'GET pushNotificationConfigs',
    dialect: 'rest',
    access: 'read',
    ok: 200,
    call: (b, h, t) => call(`${b}/a2a/rest/tasks/${t.taskId}/pushNotificationConfigs`, { headers: h }),
  },
  {
    name: 'GET pushNotificationConfigs/{id}',
    dialect: 'rest',
    access: 'read',
    ok: 200,
    call: (b, h, t) =>
      call(`${b}/a2a/rest/tasks/${t.taskId}/pushNotificationConfigs/${t.configId}`, { headers: h }),
  },
  {
    name: 'DELETE pushNotificationConfigs/{id}',
    dialect: 'rest',
    access: 'write',
    ok: 200,
    call: (b, h, t) =>
      call(`${b}/a2a/rest/tasks/${t.taskId}/pushNotificationConfigs/${t.configId}`, {
        headers: h,
        method: 'DELETE',
      }),
  },
  {
    name: 'GET extendedAgentCard',
    dialect: 'rest',
    access: 'caller',
    ok: 200,
    call: (b, h) => call(`${b}/a2a/rest/extendedAgentCard`, { headers: h }),
  },
]
