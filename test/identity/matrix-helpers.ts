import { randomUUID } from 'node:crypto'
import { defineAgent } from '../../src/agent/define.ts'
import { bearer } from '../helpers/test-authenticator.ts'

/** The callers of every cell: the task's owner, four others, and two that are not authenticated. */
export const CALLERS = {
  owner: bearer('alice', 'acme'),
  /** Another principal of the owner's tenant. */
  peer: bearer('bob', 'acme'),
  /** The owner's principal name in another tenant: the same name is not the same caller. */
  foreign: bearer('alice', 'globex'),
  /** A peer allowed to read every task of the tenant. */
  tenantReader: bearer('dave', 'acme', ['tasks:read:tenant']),
  none: {} as Record<string, string>,
  wrong: { authorization: 'Bearer bad' },
} as const
export type CallerName = keyof typeof CALLERS

/**
 * Holds its secret: an artifact (a file whose bytes are the secret) and a text artifact, then asks
 * for more input, so the task waits in INPUT_REQUIRED for answers and cancels.
 */
export const vaultAgent = defineAgent({
  id: '2f9a4c1e-7b3d-4e5f-8a6b-9c0d1e2f3a4b',
  slug: 'vault',
  name: 'Vault',
  description: 'Keeps a secret in its artifacts and waits for input, for the authorization matrix.',
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    const secret = String(input.secret ?? '')
    await ctx.artifact({
      type: 'file',
      name: 'secret',
      filename: 's.txt',
      mediaType: 'text/plain',
      bytes: secret,
    })
    await ctx.artifact({ type: 'text', name: 'note', text: `note of ${secret}` })
    const answer = await ctx.ask(`more for ${secret}?`)
    return { secret, answer: answer.input }
  },
})

/** What a cell's response was: status, headers and the body (for a stream, up to its first event). */
export interface Answer {
  status: number
  headers: Headers
  text: string
}

/** Any request; an SSE response is read up to its first complete event, then dropped. */
export const call = async (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = { 'a2a-version': '1.0', ...init.headers }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const controller = new AbortController()
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    signal: controller.signal,
  })
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body)
    return { status: response.status, headers: response.headers, text: await response.text() }
  let text = ''
  const decoder = new TextDecoder()
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true })
    if (/\n\n/.test(text.replace(/^:.*\n/gm, ''))) break
  }
  controller.abort()
  return { status: response.status, headers: response.headers, text }
}

/** The ids a cell aims at: one task, one of its artifacts, one of its push configs. */
export interface Target {
  taskId: string
  artifactId: string
  configId: string
}

/** Ids of nothing at all: what a missing task answers is what another caller's must answer. */
export const nowhere = (): Target => ({
  taskId: randomUUID(),
  artifactId: randomUUID(),
  configId: randomUUID(),
})

/** A response with the target's ids replaced, so two refusals of different ids can be compared. */
export const normalized = (answer: Answer, target: Target): string => {
  let text = answer.text
  for (const id of Object.values(target)) text = text.replaceAll(id, '<id>')
  return `${answer.status} ${text.replace(/"id":\d+/g, '"id":<rpc>')}`
}

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

/** What a cell must answer. */
export type Outcome = 'ok' | 'not found' | 'unauthenticated' | 'same for every caller'

export const expected = (endpoint: Endpoint, caller: CallerName): Outcome => {
  if (caller === 'none' || caller === 'wrong') return 'unauthenticated'
  if (endpoint.access === 'caller') return 'same for every caller'
  if (caller === 'owner') return 'ok'
  if (caller === 'tenantReader' && endpoint.access === 'read') return 'ok'
  return 'not found'
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
const json = (answer: Answer): any => JSON.parse(answer.text)

/** The dialect's exact refusal of an unauthenticated caller: 401, a challenge, its error shape. */
export const assertUnauthenticated = (
  assert: typeof import('node:assert/strict'),
  dialect: Dialect,
  answer: Answer,
): void => {
  assert.equal(answer.status, 401)
  assert.match(answer.headers.get('www-authenticate') ?? '', /Bearer realm="test"/)
  const body = json(answer)
  if (dialect === 'clawpedia') assert.equal(body.error.code, 'UNAUTHENTICATED')
  if (dialect === 'jsonrpc') assert.equal(body.error.code, -32000)
  if (dialect === 'rest') assert.equal(body.error.status, 'UNAUTHENTICATED')
}

/** The dialect's exact not-found answer. */
export const assertNotFound = (
  assert: typeof import('node:assert/strict'),
  endpoint: Endpoint,
  answer: Answer,
): void => {
  const body = json(answer)
  if (endpoint.dialect === 'clawpedia') {
    assert.equal(answer.status, 404)
    const code = endpoint.name === 'artifact content' ? 'ARTIFACT_NOT_FOUND' : 'TASK_NOT_FOUND'
    assert.equal(body.error.code, code)
  } else if (endpoint.dialect === 'jsonrpc') {
    assert.equal(answer.status, 200)
    assert.equal(body.error.code, -32001)
  } else {
    assert.equal(answer.status, 404)
    assert.equal(body.error.status, 'NOT_FOUND')
    assert.equal(body.error.details[0].reason, 'TASK_NOT_FOUND')
  }
}
