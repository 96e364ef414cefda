/**
 * /metrics is guarded exactly as /admin is, and the operator logs: one access line per request
 * (route pattern, status, duration, principal; never a credential) and task lines naming the
 * task and its agent.
 */
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { pino } from 'pino'
import { failingAgent, instantAgent } from '../helpers/agents.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'

/** A GET with exactly these headers (fetch will not send a Host of our choosing). */
const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })

/** An address of this machine that is not loopback, when it has one. */
describe('/metrics access: loopback-only mode (no admin token, no authenticators)', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ host: '0.0.0.0', insecureNoAuth: true, agents: [instantAgent] })
  })
  after(() => server.close())
  const port = () => new URL(server.url).port

  it('serves a loopback client', async () => {
    const response = await get(`http://127.0.0.1:${port()}/metrics`)
    assert.equal(response.status, 200)
    assert.match(response.body, /^# HELP switchboard_/m)
  })

  it('refuses a client on a non-loopback address', async () => {
    // inject gives the socket address as is: no second machine or outside interface is needed.
    const response = await server.switchboard.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { host: `127.0.0.1:${port()}` },
    })
    assert.equal(response.statusCode, 403)
    assert.doesNotMatch(response.body, /switchboard_/)
  })

  it('refuses a request forwarded by a proxy, or naming another host', async () => {
    const url = `http://127.0.0.1:${port()}/metrics`
    assert.equal((await get(url, { 'x-forwarded-for': '203.0.113.9' })).status, 403)
    assert.equal((await get(url, { host: 'rebound.example:80' })).status, 403)
  })
})

describe('/metrics access with an admin token and authenticators', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({
      identity: { authenticators: [testAuthenticator] },
      admin: { token: 'adm1n-token' },
      agents: [instantAgent],
    })
  })
  after(() => server.close())
  const metrics = (headers: Record<string, string> = {}) => get(`${server.url}/metrics`, headers)

  it('refuses a request without credentials, even from loopback, with a challenge', async () => {
    const response = await metrics()
    assert.equal(response.status, 401)
    assert.match(String(response.headers['www-authenticate']), /switchboard-admin/)
    assert.equal((await metrics({ authorization: 'Bearer wrong-token' })).status, 401)
  })

  it('refuses a caller without the admin scope', async () => {
    assert.equal((await metrics(bearer('alice', 't1'))).status, 403)
  })

  it('opens to the admin token and to a caller with the admin scope', async () => {
    assert.equal((await metrics({ authorization: 'Bearer adm1n-token' })).status, 200)
    assert.equal((await metrics(bearer('root', 't1', ['admin']))).status, 200)
  })
})

describe('operator logs', () => {
  const lines: Record<string, unknown>[] = []
  let server: TestServer
  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    server = await startServer({
      logger,
      identity: { authenticators: [testAuthenticator] },
      admin: { token: 'adm1n-token' },
      agents: [instantAgent, failingAgent],
    })
  })
  after(() => server.close())

  it('writes one access line per request: route pattern, status, duration, principal, agent, task; no credential', async () => {
    const created = await request(`${server.url}/agents/instant/tasks`, {
      body: { input: {} },
      headers: bearer('alice', 't1'),
    })
    assert.equal(created.status, 202)
    const taskId: string = created.body.task_id
    await request(`${server.url}/agents/instant/tasks/${taskId}`, { headers: bearer('alice', 't1') })
    await get(`${server.url}/metrics`, { authorization: 'Bearer adm1n-token' })
    const access = await eventually(async () => {
      const found = lines.filter((line) => line.msg === 'request')
      return found.length >= 3 ? found : undefined
    })
    assert.equal(access.length, 3)
    assert.deepEqual(
      access.map((line) => [line.method, line.route, line.status, line.principal]),
      [
        ['POST', '/agents/instant/tasks', 202, 'alice'],
        ['GET', '/agents/instant/tasks/:taskId', 200, 'alice'],
        // The admin token is no caller: the line names none.
        ['GET', '/metrics', 200, undefined],
      ],
    )
    for (const line of access) assert.equal(typeof line.durationMs, 'number')
    const text = JSON.stringify(lines)
    assert.doesNotMatch(text, /adm1n-token/)
    assert.doesNotMatch(text, /test:alice:t1/)
    // The route pattern, never the raw URL: the task id is a field of its own, as on task lines.
    assert.doesNotMatch(JSON.stringify(access.map((line) => line.route)), new RegExp(taskId))
    assert.deepEqual(
      access.map((line) => [line.agent, line.taskId]),
      [
        ['instant', undefined],
        ['instant', taskId],
        [undefined, undefined],
      ],
    )
  })

  it('writes task lines naming the task and its agent, at info', async () => {
    const created = await request(`${server.url}/agents/failing/tasks`, {
      body: { input: { reason: 'x' } },
      headers: bearer('alice', 't1'),
    })
    const taskId: string = created.body.task_id
    const finished = await eventually(async () =>
      lines.find((line) => line.msg === 'task finished' && line.taskId === taskId),
    )
    assert.equal(finished.agent, 'failing')
    assert.equal(finished.state, 'FAILED')
    assert.equal(finished.level, 30)
    assert.equal(typeof finished.durationMs, 'number')
    const createdLine = lines.find((line) => line.msg === 'task created' && line.taskId === taskId)
    assert.equal(createdLine?.agent, 'failing')
  })
})
