/**
 * `switchboard deliveries` against a real server's admin API: a webhook that refuses makes dead
 * deliveries, which the operator lists, inspects and retries; the token is required.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { connect } from '../../src/client.ts'
import { stubServer } from '../client/helpers.ts'
import { eventually, startServer, type TestServer } from '../helpers/server.ts'
import { cli, json } from './helpers.ts'

const TOKEN = 'admin-token-for-tests'

interface DeliveryView {
  id: string
  task_id: string
  state: string
  attempts: number
  event: string
  last_error?: string
}

let server: TestServer
let hook: Awaited<ReturnType<typeof stubServer>>
let taskId: string
before(async () => {
  hook = await stubServer(() => ({ status: 400 }))
  server = await startServer({
    admin: { token: TOKEN },
    notifications: { 'long-runner': { endpointUrl: `${hook.url}/hook` } },
    outbound: { allow: ['127.0.0.0/8'] },
    push: { baseMs: 5, capMs: 20, pollMs: 5 },
  })
  const task = await (await connect(`${server.url}/agents/long-runner`)).send({ steps: 1, step_ms: 1 })
  await task.wait({ timeoutMs: 5000 })
  taskId = task.id
  // A 400 is final: every status notification of the task ends dead.
  // Waited for, not polled a fixed number of times: a slow machine must not start the tests early.
  await eventually(
    async () => {
      const counts = await server.switchboard.engine.deliveries.count()
      return counts.dead === 3 && counts.pending === 0 ? true : undefined
    },
    20_000,
    'three dead deliveries',
  )
})
after(async () => {
  await server.close()
  await hook.close()
})

describe('deliveries', () => {
  it('list, show and stats with the token; without it the server refuses (exit 7: credentials refused)', async () => {
    const [listed, stats, refused, byEnv, badState] = await Promise.all([
      cli(['deliveries', 'list', '--server', server.url, '--token', TOKEN, '--state', 'dead', '--json']),
      cli(['deliveries', 'stats', '--server', server.url, '--token', TOKEN, '--json']),
      cli(['deliveries', 'list', '--server', server.url]),
      cli(['deliveries', 'list', '--task', taskId], {
        env: { SWITCHBOARD_ADMIN_TOKEN: TOKEN, SWITCHBOARD_SERVER: server.url },
      }),
      cli(['deliveries', 'list', '--server', server.url, '--state', 'lost']),
    ])
    assert.equal(listed.code, 0, listed.stderr)
    const dead = json<DeliveryView[]>(listed)
    assert.equal(dead.length, 3)
    assert.ok(dead.every((d) => d.state === 'dead' && d.task_id === taskId && d.last_error === 'HTTP 400'))
    assert.deepEqual(dead.map((d) => d.event).sort(), [
      'status:COMPLETED',
      'status:SUBMITTED',
      'status:WORKING',
    ])
    assert.deepEqual(json(stats), { pending: 0, delivered: 0, dead: 3 })
    assert.equal(refused.code, 7)
    assert.match(refused.stderr, /admin token/)
    assert.equal(byEnv.code, 0, byEnv.stderr)
    assert.match(byEnv.stdout, /DELIVERY\s+STATE\s+ATTEMPTS/)
    assert.equal(byEnv.stdout.trim().split('\n').length, 4)
    assert.equal(badState.code, 2)

    const shown = await cli(['deliveries', 'show', dead[0]!.id, '--server', server.url, '--token', TOKEN])
    assert.equal(shown.code, 0, shown.stderr)
    assert.match(shown.stdout, new RegExp(`delivery ${dead[0]!.id} {2}dead`))
    assert.match(shown.stdout, /last error: HTTP 400/)
  })

  it('retry sends a dead delivery again; retrying one that is not dead is an error (exit 4)', async () => {
    const [first] = json<DeliveryView[]>(
      await cli([
        'deliveries',
        'list',
        '--server',
        server.url,
        '--token',
        TOKEN,
        '--state',
        'dead',
        '--json',
      ]),
    )
    const retried = await cli([
      'deliveries',
      'retry',
      first!.id,
      '--server',
      server.url,
      '--token',
      TOKEN,
      '--json',
    ])
    assert.equal(retried.code, 0, retried.stderr)
    const view = json<DeliveryView>(retried)
    assert.equal(view.id, first!.id)
    assert.equal(view.state, 'pending')
    const delivered = await cli([
      'deliveries',
      'retry',
      '6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f',
      '--server',
      server.url,
      '--token',
      TOKEN,
    ])
    assert.equal(delivered.code, 4)
    assert.match(delivered.stderr, /no delivery/)
  })
})
