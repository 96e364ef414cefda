import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import pino from 'pino'
import type { Authenticator } from '../../src/identity/authenticator.ts'
import { request, startServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'

const TASK = '/agents/long-runner/tasks/0197f3a0-0000-7000-8000-000000000000'

/** An identity provider that is down: every check fails for a reason that is not the caller's. */
const unreachable: Authenticator = {
  name: 'down',
  securityScheme: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
  challenge: 'Bearer realm="switchboard"',
  async authenticate() {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9 (the key set)')
  },
}

describe('the authentication stage', () => {
  it('answers 401 for a credential that could not be checked, and logs why for the operator', async () => {
    const lines: string[] = []
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk))
          done()
        },
      }),
    )
    const server = await startServer({ identity: { authenticators: [unreachable] }, logger })
    try {
      const answer = await request(`${server.url}${TASK}`, { headers: { authorization: 'Bearer whatever' } })
      assert.equal(answer.status, 401)
      assert.equal(answer.body.error.code, 'UNAUTHENTICATED')
      assert.doesNotMatch(JSON.stringify(answer.body), /ECONNREFUSED/, 'the cause stays in the log')
      const warning = lines
        .map((line) => JSON.parse(line))
        .find((entry) => /could not be checked/.test(entry.msg))
      assert.ok(warning, 'a warning names the failure')
      assert.match(warning.err.message, /ECONNREFUSED/)
      assert.doesNotMatch(lines.join('\n'), /whatever/, 'never the credential')
    } finally {
      await server.close()
    }
  })

  it('sends each distinct challenge once', async () => {
    const twin: Authenticator = {
      ...testAuthenticator,
      name: 'twin',
      challenge: testAuthenticator.challenge!,
    }
    const server = await startServer({ identity: { authenticators: [testAuthenticator, twin] } })
    try {
      const answer = await request(`${server.url}${TASK}`)
      assert.equal(answer.status, 401)
      assert.equal(answer.headers.get('www-authenticate'), testAuthenticator.challenge)
      const own = await request(`${server.url}${TASK}`, { headers: bearer('alice', 'acme') })
      assert.equal(own.status, 404)
    } finally {
      await server.close()
    }
  })
})
