/**
 * No credential in logs or error bodies: the server's logger censors credential headers and secret
 * fields, and a refused credential never comes back in a 401, whatever the authenticator wrote.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { after, describe, it } from 'node:test'
import type { Authenticator } from '../../src/identity/authenticator.ts'
import { SwitchboardError } from '../../src/model/errors.ts'
import { createServerLogger, credentialCensor } from '../../src/server/redaction.ts'
import { rest, rpc } from '../a2a/helpers.ts'
import { sendWithPush } from '../helpers/push-secrets.ts'
import { eventually, request, startServer } from '../helpers/server.ts'
import { closedPort } from '../push/helpers.ts'

const cleanup: (() => Promise<void> | void)[] = []
after(async () => {
  for (const close of cleanup.reverse()) await close()
})

const SECRETS = {
  bearer: 'bearer-secret-7d3a9c21',
  apiKey: 'api-key-secret-41bb0e',
  cookie: 'session-secret-c0ffee99',
  token: 'push-token-secret-aa11',
  credentials: 'push-cred-secret-bb22',
  authHeader: 'X-Hook: hook-secret-cc33',
  clientSecret: 'oauth-secret-dd44',
}

/** Refuses every credential it sees, quoting it in its message as a careless authenticator would. */
const quotingAuthenticator: Authenticator = {
  name: 'apiKey',
  securityScheme: { apiKeySecurityScheme: { location: 'header', name: 'X-Custom-Key' } },
  challenge: 'Bearer realm="switchboard"',
  async authenticate({ headers }) {
    const presented = headers.authorization ?? headers['x-custom-key']
    if (presented === undefined) return undefined
    throw new SwitchboardError('UNAUTHENTICATED', `unknown credential ${String(presented)}`, {
      presented: String(presented),
    })
  },
}

const capture = () => {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return {
    lines,
    logger: createServerLogger({ level: 'debug', authenticators: [quotingAuthenticator], destination }),
  }
}

describe('credentials in logs and errors', () => {
  it('the server logger censors credential headers (the configured API key header too) and secret fields', () => {
    const { lines, logger } = capture()
    logger.info(
      {
        req: {
          method: 'POST',
          url: '/a2a/jsonrpc',
          headers: {
            authorization: `Bearer ${SECRETS.bearer}`,
            'x-custom-key': SECRETS.apiKey,
            'x-api-key': SECRETS.apiKey,
            cookie: `sid=${SECRETS.cookie}`,
            'content-type': 'application/json',
          },
        },
      },
      'a request',
    )
    logger.warn(
      {
        target: {
          kind: 'a2a',
          url: 'https://hooks.example.com/x',
          token: SECRETS.token,
          authentication: { scheme: 'Bearer', credentials: SECRETS.credentials },
        },
        config: { authHeader: SECRETS.authHeader },
      },
      'a push target',
    )
    logger.error({ oauth: { clientSecret: SECRETS.clientSecret }, token: SECRETS.token }, 'settings')
    const output = lines.join('')
    for (const secret of Object.values(SECRETS))
      assert.ok(!output.includes(secret), `the log holds "${secret}"`)
    assert.match(output, /"content-type":"application\/json"/, 'what is not a credential is still logged')
    assert.match(output, /https:\/\/hooks\.example\.com\/x/)
    assert.equal(lines.length, 3)
  })

  it('censors in one pass what the paths named: arrays, errors, child bindings; copies only a line it censors', () => {
    const { lines, logger } = capture()
    const error = Object.assign(new Error('push failed'), { token: SECRETS.token })
    logger.error(
      { err: error, targets: [{ url: 'https://a.example', token: SECRETS.token }] },
      'with an error',
    )
    logger.child({ component: 'push' }).child({ apiKey: SECRETS.apiKey }).info('from a grandchild')
    logger.info({ request: { headers: { 'x-custom-key': SECRETS.apiKey } } }, 'a bare request')
    logger.info(
      { res: { statusCode: 200, headers: { 'set-cookie': `sid=${SECRETS.cookie}` } } },
      'a response',
    )
    const [withError, fromChild, bareRequest, response] = lines.map((line) => JSON.parse(line))
    assert.equal(withError.err.message, 'push failed', 'the error keeps its message')
    assert.match(withError.err.stack, /push failed/, 'and its stack')
    assert.equal(withError.err.token, '[Redacted]')
    assert.deepEqual(withError.targets, [{ url: 'https://a.example', token: '[Redacted]' }])
    assert.equal(error.token, SECRETS.token, 'the logged object itself is left as it was')
    assert.equal(fromChild.apiKey, '[Redacted]')
    assert.equal(fromChild.component, 'push')
    assert.equal(bareRequest.request.headers['x-custom-key'], '[Redacted]')
    assert.equal(response.res.headers['set-cookie'], '[Redacted]')
    assert.equal(response.res.statusCode, 200)

    const censor = credentialCensor(['authorization'])
    const accessLine = { method: 'POST', route: '/a2a', status: 200, durationMs: 1.2, tenant: 't' }
    assert.equal(censor(accessLine), accessLine, 'a line with nothing to censor is not copied')
    const nested = { a: { b: { c: { token: 'four levels down' } } }, d: { e: { token: 'three' } } }
    assert.deepEqual(censor(nested), {
      a: { b: { c: { token: 'four levels down' } } },
      d: { e: { token: '[Redacted]' } },
    })
  })

  it('a whole server run (refused credentials, push retries to a dead endpoint) logs no credential', async () => {
    const { lines, logger } = capture()
    const port = await closedPort()
    const server = await startServer({
      logger,
      identity: { authenticators: [quotingAuthenticator], allowAnonymous: true },
      notifications: {
        'python-script-generator': {
          endpointUrl: `http://127.0.0.1:${port}/hook`,
          authHeader: SECRETS.authHeader,
        },
      },
      push: { baseMs: 5, capMs: 10, maxAttempts: 2 },
    })
    cleanup.push(() => server.close())
    const base = `${server.url}/agents/python-script-generator`
    await request(`${base}/tasks?api_key=${SECRETS.apiKey}`, {
      body: { input: {} },
      headers: { authorization: `Bearer ${SECRETS.bearer}` },
    })
    const created = await sendWithPush(base, {
      url: `http://127.0.0.1:${port}/a2a`,
      token: SECRETS.token,
      credentials: SECRETS.credentials,
    })
    assert.equal(created.status, 200)
    await eventually(async () => {
      const counts = await server.switchboard.store.countDeliveries()
      return counts.dead >= 2 && counts.pending === 0 ? true : undefined
    }, 10_000)
    const output = lines.join('')
    assert.match(output, /push: gave up/, 'the run logged something worth checking')
    for (const secret of Object.values(SECRETS))
      assert.ok(!output.includes(secret), `the log holds "${secret}"`)
  })

  it('a refused credential is never echoed in the 401 body, on any dialect', async () => {
    const server = await startServer({ identity: { authenticators: [quotingAuthenticator] } })
    cleanup.push(() => server.close())
    const base = `${server.url}/agents/python-script-generator`
    const credentialed: Record<string, string>[] = [
      { authorization: `Bearer ${SECRETS.bearer}` },
      { 'x-custom-key': SECRETS.apiKey },
    ]
    for (const headers of credentialed) {
      const answers = [
        await request(`${base}/tasks/${randomUUID()}`, { headers }),
        await rpc(base, 'GetTask', { id: randomUUID() }, { 'A2A-Version': '1.0', ...headers }),
        await rest(base, `/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0', ...headers } }),
      ]
      for (const answer of answers) {
        const body = JSON.stringify(answer.body)
        assert.ok(!body.includes(SECRETS.bearer) && !body.includes(SECRETS.apiKey), body)
        assert.match(body, /credential was refused/)
        assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="switchboard"')
      }
      assert.equal(answers[0]!.status, 401)
      assert.equal(answers[2]!.status, 401)
    }
  })
})
