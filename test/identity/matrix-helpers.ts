import { randomUUID } from 'node:crypto'
import { defineAgent } from '../../src/agent/define.ts'
import { bearer } from '../helpers/test-authenticator.ts'
import type { Dialect, Endpoint } from './matrix-endpoints.ts'

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
