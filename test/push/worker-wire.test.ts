import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import pino from 'pino'
import type { Delivery } from '../../src/model/push.ts'
import { verifySignature } from '../../src/outbound/signing.ts'
import {
  bodyOf,
  createPushedTask,
  eventKeyOf,
  receiver,
  render,
  runCleanup,
  runToCompletion,
  settled,
  setupWorker,
  waitFor,
} from './helpers.ts'

afterEach(runCleanup)

const secret = 'whsec_switchboard_test'

describe('what a receiver sees', () => {
  test('the signature verifies against the body as received, and only against it', async () => {
    const hook = await receiver()
    const { store, worker } = await setupWorker({ signingSecret: secret })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await runToCompletion(store, task)
    await waitFor('three deliveries', settled(store, 3))
    for (const request of hook.received) {
      const header = request.headers['switchboard-signature'] as string
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/)
      assert.equal(verifySignature({ secret, header, body: request.body }), true)
      assert.equal(verifySignature({ secret, header, body: request.body.replace('"seq"', '"Seq"') }), false)
      const signedAt = Number(/t=(\d+)/.exec(header)?.[1])
      assert.equal(verifySignature({ secret, header, body: request.body, nowSeconds: signedAt + 301 }), false)
    }
  })

  test('headers: the rendered ones, a JSON default, and our idempotency key over any rendered one', async () => {
    const hook = await receiver()
    const renderWithKey = (delivery: Delivery) => {
      const rendered = render(delivery)
      return { ...rendered, headers: { ...rendered.headers, 'Idempotency-Key': 'from-render' } }
    }
    const { store, worker } = await setupWorker({ render: renderWithKey })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the delivery', settled(store, 1))
    const [request] = hook.received
    assert.equal(request?.headers.authorization, 'Bearer push-secret-token-42')
    assert.equal(request?.headers['content-type'], 'application/json')
    const [config] = await store.listPushConfigs({ tenant: 'default' }, task)
    assert.equal(request?.headers['idempotency-key'], `${task}:${config?.id}:2`)
    assert.equal(request?.headers['switchboard-signature'], undefined, 'unsigned without a secret')
    assert.equal(bodyOf(request!).state, 'SUBMITTED')
  })

  test('one event to two targets: a key per target, the same for every attempt at one delivery', async () => {
    const hook = await receiver((_request, n) => ({ status: n === 0 ? 500 : 200 }))
    const { store, worker } = await setupWorker()
    const task = await createPushedTask(store, [`${hook.url}?to=a`, `${hook.url}?to=b`])
    worker.start()
    await waitFor('both deliveries', settled(store, 2))
    const configs = await store.listPushConfigs({ tenant: 'default' }, task)
    const keys = hook.received.map((r) => r.headers['idempotency-key'])
    const expected = configs.map((config) => `${task}:${config.id}:2`)
    assert.equal(keys.length, 3, 'the first attempt failed and was retried')
    assert.deepEqual([...new Set(keys)].sort(), expected.sort())
    assert.equal(
      hook.received.map(eventKeyOf).every((key) => key === `${task}:2`),
      true,
    )
  })

  test('a render that throws makes the delivery dead, not a crash', async () => {
    const hook = await receiver()
    const { store, worker } = await setupWorker({
      render: () => {
        throw new Error('no dialect for this target')
      },
    })
    await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the dead delivery', settled(store, 0, 1))
    const [dead] = await store.listDeliveries({ state: 'dead', limit: 1 })
    assert.equal(dead?.lastError, 'rendering the notification failed: no dialect for this target')
    assert.equal(hook.connections(), 0)
  })

  test('logs name the task, seq and origin, never the credentials or the path', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) })
    const hook = await receiver((_request, n) => ({ status: n === 0 ? 500 : n === 1 ? 200 : 404 }))
    const { store, worker } = await setupWorker({ logger, signingSecret: secret })
    const url = `${hook.url}?token=query-secret-99`
    const task = await createPushedTask(store, url)
    worker.start()
    await store.append({ taskId: task, events: [{ kind: 'status', state: 'WORKING' }] })
    await waitFor('one delivered, one dead', settled(store, 1, 1))
    const logs = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.deepEqual(
      logs.map((l) => [l.msg, l.seq, l.status]),
      [
        ['push: will retry', 2, 500],
        ['push: delivered', 2, 200],
        ['push: gave up', 3, 404],
      ],
    )
    for (const log of logs) {
      assert.equal(log.taskId, task)
      assert.equal(log.origin, new URL(hook.url).origin)
    }
    const all = lines.join('\n')
    for (const secretText of ['push-secret-token-42', 'Bearer', 'query-secret-99', '/hook', secret]) {
      assert.ok(!all.includes(secretText), `the logs leak ${secretText}`)
    }
  })
})
