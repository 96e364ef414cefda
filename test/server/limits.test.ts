/**
 * Abuse limits per principal: a request rate (429 with Retry-After, per principal, never on public
 * routes) and a cap on open tasks, on every dialect.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, describe, it } from 'node:test'
import { limitsFlags } from '../../src/cli/serve-flags/limits.ts'
import { EXPOSED_DEFAULTS, limitsOf, TokenBuckets } from '../../src/server/limits.ts'
import { rest, rpc } from '../a2a/helpers.ts'
import { request, startServer } from '../helpers/server.ts'
import { bearer, testAuthenticator } from '../helpers/test-authenticator.ts'

const cleanup: (() => Promise<void> | void)[] = []
after(async () => {
  for (const close of cleanup.reverse()) await close()
})

/** `Authorization: Bearer <name>` is the principal <name> of tenant t. */
const as = (name: string) => ({ ...bearer(name, 't'), 'A2A-Version': '1.0' })

describe('token buckets', () => {
  it('grant the burst, then one token per interval, and say how long to wait', () => {
    let now = 1_000_000
    const buckets = new TokenBuckets({ perMinute: 60, burst: 3, now: () => now })
    assert.deepEqual([buckets.take('a'), buckets.take('a'), buckets.take('a')], [0, 0, 0])
    assert.equal(buckets.take('a'), 1000)
    assert.equal(buckets.take('b'), 0, 'another key has its own bucket')
    now += 400
    assert.equal(buckets.take('a'), 600)
    now += 600
    assert.equal(buckets.take('a'), 0)
    assert.equal(buckets.take('a'), 1000)
  })

  it('keep memory bounded: full buckets are dropped, and the least recently used past the cap', () => {
    let now = 0
    const buckets = new TokenBuckets({ perMinute: 60, burst: 2, now: () => now, maxBuckets: 100 })
    for (let i = 0; i < 50; i++) buckets.take(`k${i}`)
    assert.equal(buckets.size, 50)
    now += 1000 // every bucket is full again
    buckets.take('fresh')
    assert.equal(buckets.size, 1)
    for (let i = 0; i < 500; i++) buckets.take(`m${i}`)
    assert.ok(buckets.size <= 101, `${buckets.size} buckets`)
  })

  it('limits: none on loopback unless configured, generous defaults on any other address', () => {
    assert.deepEqual(limitsOf(undefined, '127.0.0.1'), { requestsPerMinute: 0, burst: 1, openTasks: 0 })
    assert.deepEqual(limitsOf(undefined, '0.0.0.0'), { ...EXPOSED_DEFAULTS, burst: 100 })
    assert.deepEqual(limitsOf({ requestsPerMinute: 60, openTasks: 0 }, '0.0.0.0'), {
      requestsPerMinute: 60,
      burst: 10,
      openTasks: 0,
    })
  })

  it('serve: --rate-limit, --rate-burst, --max-open-tasks over the environment over limits in the file', () => {
    const resolve = (flags: object, env: object, file: object) =>
      limitsFlags.resolve({ flags: flags as never, env: env as never, file: file as never })
    assert.deepEqual(
      resolve({ rateLimit: '120/min', rateBurst: '5' }, { SWITCHBOARD_MAX_OPEN_TASKS: '9' }, {}),
      {
        limits: { requestsPerMinute: 120, burst: 5, openTasks: 9 },
      },
    )
    assert.deepEqual(
      resolve({}, { SWITCHBOARD_RATE_LIMIT: '30' }, { limits: { requestsPerMinute: 5, openTasks: 0 } }),
      {
        limits: { requestsPerMinute: 30, openTasks: 0 },
      },
    )
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.throws(() => resolve({ rateLimit: 'lots' }, {}, {}), /--rate-limit must be a whole number/)
    assert.throws(() => resolve({}, { SWITCHBOARD_MAX_OPEN_TASKS: '-1' }, {}), /SWITCHBOARD_MAX_OPEN_TASKS/)
    assert.throws(() => resolve({}, {}, { limits: { burst: 0 } }), /--rate-burst must be at least 1/)
  })
})

describe('limits on a server', () => {
  it('the request rate: per principal, 429 with Retry-After on every dialect, never on public routes', async () => {
    const server = await startServer({
      identity: { authenticators: [testAuthenticator] },
      limits: { requestsPerMinute: 1, burst: 2 },
    })
    cleanup.push(() => server.close())
    const base = `${server.url}/agents/python-script-generator`
    const missing = randomUUID()
    assert.equal((await request(`${base}/tasks/${missing}`, { headers: as('alice') })).status, 404)
    assert.equal((await request(`${base}/tasks/${missing}`, { headers: as('alice') })).status, 404)

    const clawpedia = await request(`${base}/tasks/${missing}`, { headers: as('alice') })
    assert.equal(clawpedia.status, 429)
    assert.equal(clawpedia.body.error.code, 'RATE_LIMITED')
    assert.ok(Number(clawpedia.headers.get('retry-after')) > 0)
    const jsonRpc = await rpc(base, 'GetTask', { id: missing }, as('alice'))
    assert.equal(jsonRpc.body.error.code, -32029)
    assert.ok(Number(jsonRpc.headers.get('retry-after')) > 0)
    const restAnswer = await rest(base, `/tasks/${missing}`, { headers: as('alice') })
    assert.equal(restAnswer.status, 429)
    assert.ok(Number(restAnswer.headers.get('retry-after')) > 0)

    assert.equal(
      (await request(`${base}/tasks/${missing}`, { headers: as('bob') })).status,
      404,
      'bob has his own',
    )
    for (let i = 0; i < 5; i++) {
      assert.equal((await request(`${base}/agent-card.json`)).status, 200)
      assert.equal((await request(`${server.url}/healthz`)).status, 200)
    }
  })

  it('the open-task cap: a creation beyond it is RATE_LIMITED on every dialect; finishing one frees a place', async () => {
    const server = await startServer({
      identity: { authenticators: [testAuthenticator] },
      limits: { openTasks: 2 },
    })
    cleanup.push(() => server.close())
    const base = `${server.url}/agents/long-runner`
    const create = (who: string) =>
      request(`${base}/tasks`, { body: { input: { steps: 100, step_ms: 1000 } }, headers: as(who) })
    const first = await create('alice')
    assert.equal(first.status, 202)
    assert.equal((await create('alice')).status, 202)

    const refused = await create('alice')
    assert.equal(refused.status, 429)
    assert.equal(refused.body.error.code, 'RATE_LIMITED')
    assert.deepEqual(refused.body.error.details, { openTasks: 2, limit: 2 })
    const a2a = await rpc(
      base,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { steps: 1 } }] } },
      as('alice'),
    )
    assert.equal(a2a.body.error.code, -32029)
    assert.equal((await create('bob')).status, 202, 'the cap is per principal')

    const cancelled = await request(`${base}/tasks/${first.body.task_id}/cancel`, {
      body: {},
      headers: as('alice'),
    })
    assert.ok(cancelled.status < 300, JSON.stringify(cancelled.body))
    assert.equal((await create('alice')).status, 202)
  })
})
