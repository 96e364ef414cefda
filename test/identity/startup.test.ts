import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import { pino } from 'pino'
import type { Authenticator } from '../../src/identity/authenticator.ts'
import { isLoopbackBind } from '../../src/server/exposure.ts'
import { instantAgent } from '../helpers/agents.ts'
import { request, startServer } from '../helpers/server.ts'

/** A pino logger whose lines the test can read. */
const capturedLogger = () => {
  const lines: { level: number; msg: string }[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { logger: pino({ level: 'info' }, stream), lines }
}

const WARN = 40

/** The simplest authenticator: one fixed bearer token. */
const oneToken: Authenticator = {
  name: 'test',
  securityScheme: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
  async authenticate({ headers }) {
    return headers.authorization === 'Bearer t0ken'
      ? { principal: 'tester', tenant: 'default', scopes: [], method: 'test' }
      : undefined
  },
}

describe('start-up policy: no authentication only on loopback, or when asked for', () => {
  it('refuses to bind a non-loopback address with no authenticator, naming --insecure-no-auth', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      await assert.rejects(
        startServer({ agents: [instantAgent], host }),
        /refusing to listen on .* --insecure-no-auth/,
      )
    }
  })

  it('with insecureNoAuth it starts, and warns on each start', async () => {
    const { logger, lines } = capturedLogger()
    const server = await startServer({
      agents: [instantAgent],
      host: '0.0.0.0',
      insecureNoAuth: true,
      logger,
    })
    try {
      const port = new URL(server.url).port
      // Traffic only to loopback: the bind is what is tested.
      const created = await request(`http://127.0.0.1:${port}/agents/instant/tasks`, { body: { input: {} } })
      assert.equal(created.status, 202)
      const warnings = lines.filter((line) => line.level === WARN && /authentication is off/.test(line.msg))
      assert.equal(warnings.length, 1)
    } finally {
      await server.close()
    }
  })

  it('on loopback with no authenticator, every caller is the anonymous one, without a warning', async () => {
    const { logger, lines } = capturedLogger()
    const server = await startServer({ agents: [instantAgent], logger })
    try {
      const created = await request(`${server.url}/agents/instant/tasks`, { body: { input: {} } })
      assert.equal(created.status, 202)
      assert.equal(lines.filter((line) => line.level >= WARN).length, 0)
    } finally {
      await server.close()
    }
  })

  it('a non-loopback address with an authenticator starts without a warning', async () => {
    const { logger, lines } = capturedLogger()
    const server = await startServer({
      agents: [instantAgent],
      host: '0.0.0.0',
      identity: { authenticators: [oneToken] },
      logger,
    })
    try {
      const port = new URL(server.url).port
      assert.equal(
        (await request(`http://127.0.0.1:${port}/agents/instant/tasks`, { body: { input: {} } })).status,
        401,
      )
      assert.equal(lines.filter((line) => line.level >= WARN).length, 0)
    } finally {
      await server.close()
    }
  })

  it('counts API keys as authentication: a non-loopback address with only API keys starts', async () => {
    const server = await startServer({ agents: [instantAgent], host: '0.0.0.0', identity: { apiKeys: {} } })
    try {
      const port = new URL(server.url).port
      const refused = await request(`http://127.0.0.1:${port}/agents/instant/tasks`, { body: { input: {} } })
      assert.equal(refused.status, 401)
    } finally {
      await server.close()
    }
  })

  it('knows loopback binds', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackBind(host), true, host)
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '::ffff:10.0.0.1'])
      assert.equal(isLoopbackBind(host), false, host)
  })
})
