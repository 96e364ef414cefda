/**
 * Malformed requests across every Clawpedia endpoint: each gets the right status and error code,
 * stored data stays exactly as it was, and the server keeps serving.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { DEFAULT_SCOPE } from '../../src/model/task.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'

let server: TestServer
let completed: string
let working: string
let waiting: string
let artifact: string

const gen = () => server.url
const base = (slug: string) => `${server.url}/agents/${slug}`

const settle = async (url: string, id: string, stop?: string) => {
  await readSse(`${url}/tasks/${id}/stream`, {
    stopWhen: (e) => stop !== undefined && e.event === 'status' && JSON.parse(e.data).status === stop,
  })
}

before(async () => {
  server = await startServer({ bodyLimit: 64 * 1024 })
  completed = (await request(`${gen()}/tasks`, { body: { input: { topic: 'fibonacci', filename: 'f.py' } } }))
    .body.task_id
  await settle(gen(), completed)
  artifact = (await request(`${gen()}/tasks/${completed}/artifacts`)).body.artifacts[0].artifact_id
  // A step of a minute (the most the agent takes): the task logs nothing while the test runs, so
  // "changes nothing" compares like with like even on a loaded machine (a 1 s step did not).
  working = (
    await request(`${base('long-runner')}/tasks`, { body: { input: { steps: 1000, step_ms: 60_000 } } })
  ).body.task_id
  await settle(base('long-runner'), working, 'WORKING')
  waiting = (await request(`${base('report-builder')}/tasks`, { body: { input: { subject: 'owls' } } })).body
    .task_id
  await settle(base('report-builder'), waiting, 'INPUT_REQUIRED')
})
after(() => server.close())

interface Case {
  name: string
  method?: string
  path: () => string
  raw?: string
  body?: unknown
  headers?: Record<string, string>
  status: number
  code: string
}

const valid = { topic: 'fibonacci', filename: 'ok.py' }
const nested = (depth: number) =>
  `{"input":{"topic":"x","filename":"a.py","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`

const CASES: Case[] = [
  {
    name: 'truncated JSON',
    path: () => `${gen()}/tasks`,
    raw: '{"input":',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'INVALID_JSON',
  },
  {
    name: 'JSON with a trailing comma',
    path: () => `${gen()}/tasks`,
    raw: '{"input":{},}',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'INVALID_JSON',
  },
  {
    name: 'not JSON at all',
    path: () => `${gen()}/tasks`,
    raw: 'topic=x',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'INVALID_JSON',
  },
  { name: 'body is an array', path: () => `${gen()}/tasks`, body: [], status: 400, code: 'INVALID_REQUEST' },
  {
    name: 'body is a string',
    path: () => `${gen()}/tasks`,
    body: 'input',
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'body is null',
    path: () => `${gen()}/tasks`,
    raw: 'null',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'empty JSON body',
    path: () => `${gen()}/tasks`,
    raw: '',
    headers: { 'content-type': 'application/json' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'missing input',
    path: () => `${gen()}/tasks`,
    body: { topic: 'x' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'input is a string',
    path: () => `${gen()}/tasks`,
    body: { input: 'x' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'input is an array',
    path: () => `${gen()}/tasks`,
    body: { input: [valid] },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'input misses required fields',
    path: () => `${gen()}/tasks`,
    body: { input: {} },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'input field of the wrong type',
    path: () => `${gen()}/tasks`,
    body: { input: { topic: 5, filename: 'a.py' } },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'input breaks a pattern (path traversal)',
    path: () => `${gen()}/tasks`,
    body: { input: { topic: 'x', filename: '../../etc/passwd' } },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'CSV analyst without csv or csv_url',
    path: () => `${base('csv-analyst')}/tasks`,
    body: { input: { delimiter: ',' } },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'long runner with a negative step count',
    path: () => `${base('long-runner')}/tasks`,
    body: { input: { steps: -1 } },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'text/plain content type',
    path: () => `${gen()}/tasks`,
    raw: JSON.stringify({ input: valid }),
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'form content type',
    path: () => `${gen()}/tasks`,
    raw: 'input=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a body over the limit',
    path: () => `${gen()}/tasks`,
    body: { input: { ...valid, pad: 'x'.repeat(100 * 1024) } },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'task id that is not a UUID',
    path: () => `${gen()}/tasks/not-a-uuid`,
    status: 400,
    code: 'INVALID_ID',
  },
  {
    name: 'encoded path traversal as a task id',
    path: () => `${gen()}/tasks/%2e%2e%2fetc%2fpasswd`,
    status: 400,
    code: 'INVALID_ID',
  },
  { name: 'unknown task', path: () => `${gen()}/tasks/${randomUUID()}`, status: 404, code: 'TASK_NOT_FOUND' },
  {
    name: 'cancel with a malformed id',
    method: 'POST',
    path: () => `${gen()}/tasks/123/cancel`,
    status: 400,
    code: 'INVALID_ID',
  },
  {
    name: 'cancel an unknown task',
    method: 'POST',
    path: () => `${gen()}/tasks/${randomUUID()}/cancel`,
    status: 404,
    code: 'TASK_NOT_FOUND',
  },
  {
    name: 'cancel with a text body',
    method: 'POST',
    path: () => `${gen()}/tasks/${completed}/cancel`,
    raw: 'now',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'cancel a completed task',
    method: 'POST',
    path: () => `${gen()}/tasks/${completed}/cancel`,
    status: 409,
    code: 'TASK_NOT_CANCELABLE',
  },
  {
    name: 'artifacts of an unknown task',
    path: () => `${gen()}/tasks/${randomUUID()}/artifacts`,
    status: 404,
    code: 'TASK_NOT_FOUND',
  },
  {
    name: 'content of an unknown artifact',
    path: () => `${gen()}/artifacts/${randomUUID()}/content`,
    status: 404,
    code: 'ARTIFACT_NOT_FOUND',
  },
  {
    name: 'content with a malformed artifact id',
    path: () => `${gen()}/artifacts/abc/content`,
    status: 400,
    code: 'INVALID_ID',
  },
  {
    name: "another agent's artifact",
    path: () => `${base('csv-analyst')}/artifacts/${artifact}/content`,
    status: 404,
    code: 'ARTIFACT_NOT_FOUND',
  },
  {
    name: "another agent's task",
    path: () => `${base('csv-analyst')}/tasks/${completed}`,
    status: 404,
    code: 'TASK_NOT_FOUND',
  },
  {
    name: 'stream of an unknown task',
    path: () => `${gen()}/tasks/${randomUUID()}/stream`,
    status: 404,
    code: 'TASK_NOT_FOUND',
  },
  {
    name: 'stream with a non-numeric Last-Event-ID',
    path: () => `${gen()}/tasks/${completed}/stream`,
    headers: { 'last-event-id': 'abc' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'stream with a negative Last-Event-ID',
    path: () => `${gen()}/tasks/${completed}/stream`,
    headers: { 'last-event-id': '-4' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'stream with a huge Last-Event-ID',
    path: () => `${gen()}/tasks/${completed}/stream`,
    headers: { 'last-event-id': '1e400' },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'input to a completed task',
    path: () => `${gen()}/tasks/${completed}/input`,
    body: { input: valid },
    status: 409,
    code: 'TASK_TERMINAL',
  },
  {
    name: 'input to a working task',
    path: () => `${base('long-runner')}/tasks/${working}/input`,
    body: { input: { steps: 1 } },
    status: 409,
    code: 'TASK_NOT_AWAITING_INPUT',
  },
  {
    name: 'input without the input field',
    path: () => `${base('report-builder')}/tasks/${waiting}/input`,
    body: { sections: ['a'] },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'an answer that breaks the asked schema',
    path: () => `${base('report-builder')}/tasks/${waiting}/input`,
    body: { input: { sections: [] } },
    status: 400,
    code: 'INPUT_SCHEMA_VIOLATION',
  },
  {
    name: 'input to an unknown task',
    path: () => `${gen()}/tasks/${randomUUID()}/input`,
    body: { input: {} },
    status: 404,
    code: 'TASK_NOT_FOUND',
  },
  { name: 'unknown route', path: () => `${gen()}/does-not-exist`, status: 404, code: 'METHOD_NOT_FOUND' },
  {
    name: 'unknown agent',
    path: () => `${server.url}/agents/nobody/agent-card.json`,
    status: 404,
    code: 'METHOD_NOT_FOUND',
  },
  {
    name: 'DELETE is not an operation',
    method: 'DELETE',
    path: () => `${gen()}/tasks/${completed}`,
    status: 404,
    code: 'METHOD_NOT_FOUND',
  },
]

describe('bad input', () => {
  it(`answers ${CASES.length} malformed requests with the right status and code, and changes nothing`, async () => {
    assert.ok(CASES.length >= 30)
    const store = server.switchboard.store
    const snapshot = async () => JSON.stringify(await store.listTasks(DEFAULT_SCOPE, { pageSize: 100 }))
    const before = await snapshot()
    for (const c of CASES) {
      const init: Parameters<typeof request>[1] = {
        method: c.method ?? (c.raw !== undefined || c.body !== undefined ? 'POST' : 'GET'),
      }
      if (c.raw !== undefined) init.raw = c.raw
      if (c.body !== undefined) init.body = c.body
      if (c.headers) init.headers = c.headers
      const response = await request(c.path(), init)
      assert.equal(
        response.status,
        c.status,
        `${c.name}: status ${response.status} ${JSON.stringify(response.body)}`,
      )
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/, c.name)
      assert.equal(response.body.error?.code, c.code, `${c.name}: ${JSON.stringify(response.body)}`)
      assert.ok(
        typeof response.body.error.message === 'string' && response.body.error.message.length > 0,
        c.name,
      )
    }
    const violations = await request(`${gen()}/tasks`, { body: { input: {} } })
    assert.deepEqual(violations.body.error.details.violations.map((v: { field: string }) => v.field).sort(), [
      '/input/filename',
      '/input/topic',
    ])
    assert.equal(await snapshot(), before, 'no malformed request changed stored data')
    const ok = await request(`${gen()}/tasks`, { body: { input: valid } })
    assert.equal(ok.status, 202, 'the server still serves')
  })

  it('survives hostile but well-formed JSON: prototype keys and deep nesting', async () => {
    const proto = await request(`${gen()}/tasks`, {
      raw: '{"input":{"topic":"x","filename":"a.py","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(proto.status, 202)
    assert.equal(({} as { polluted?: boolean }).polluted, undefined)
    for (const depth of [1_000, 200_000]) {
      const response = await request(`${gen()}/tasks`, {
        raw: nested(depth),
        headers: { 'content-type': 'application/json' },
      })
      assert.ok([202, 400, 413].includes(response.status), `depth ${depth}: ${response.status}`)
      if (response.status !== 202) assert.ok(response.body.error.code)
    }
    assert.equal((await request(`${gen()}/agent-card.json`)).status, 200)
  })
})
