import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import { createGuardedDispatcher } from '../../src/outbound/ssrf.ts'
import { PushWorker } from '../../src/push/worker.ts'
import {
  bodyOf,
  closedPort,
  createPushedTask,
  eventKeyOf,
  memoryStore,
  onCleanup,
  type Received,
  receiver,
  render,
  runCleanup,
  runToCompletion,
  settled,
  setupWorker as setup,
  waitFor,
} from './helpers.ts'

afterEach(runCleanup)

/**
 * Guarantee 4 as the receiver sees it: every status of every task arrived (2xx), in per-task
 * order, no attempt of a later event came before an earlier one was accepted, and every attempt
 * of one event carried the same body under the key `<taskId>:<seq>`.
 */
const assertDeliveredInOrder = (
  received: readonly Received[],
  taskIds: readonly string[],
  accepted: Set<Received>,
) => {
  const attemptsByKey = new Map<string, Received[]>()
  for (const request of received) {
    const { taskId, seq } = bodyOf(request)
    const key = eventKeyOf(request)
    assert.equal(key, `${taskId}:${seq}`)
    attemptsByKey.set(key, [...(attemptsByKey.get(key) ?? []), request])
  }
  for (const attempts of attemptsByKey.values()) {
    assert.ok(attempts.every((a) => a.body === attempts[0]!.body))
  }
  for (const taskId of taskIds) {
    const ofTask = received.filter((r) => bodyOf(r).taskId === taskId)
    const seqs = ofTask.map((r) => bodyOf(r).seq)
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      `attempts for ${taskId} went out of order: ${seqs}`,
    )
    assert.deepEqual(
      ofTask.filter((r) => accepted.has(r)).map((r) => bodyOf(r).seq),
      [2, 3, 4],
    )
    assert.deepEqual(
      ofTask.filter((r) => accepted.has(r)).map((r) => bodyOf(r).state),
      ['SUBMITTED', 'WORKING', 'COMPLETED'],
    )
  }
}

describe('push worker: retries until the receiver recovers', () => {
  test('HTTP 500 for the first attempts', async () => {
    const accepted = new Set<Received>()
    const hook = await receiver((request, n) => {
      if (n < 3) return { status: 500 }
      accepted.add(request)
      return { status: 200 }
    })
    const { store, worker } = await setup()
    const tasks = [await createPushedTask(store, hook.url), await createPushedTask(store, hook.url)]
    worker.start()
    for (const id of tasks) await runToCompletion(store, id)
    await waitFor('six deliveries', settled(store, 6))
    assertDeliveredInOrder(hook.received, tasks, accepted)
    assert.equal(hook.received.length, 9)
    assert.deepEqual(worker.stats(), { delivered: 6, retried: 3, dead: 0, inFlight: 0 })
    const retried = (await store.listDeliveries({ limit: 10 })).filter((d) => d.attempts > 1)
    assert.ok(retried.length > 0, 'some delivery needed more than one attempt')
  })

  test('timeouts on the first attempts', async () => {
    const accepted = new Set<Received>()
    const hook = await receiver((request, n) => {
      if (n < 2) return 'hang'
      accepted.add(request)
      return { status: 204 }
    })
    const { store, worker } = await setup({ timeoutMs: 150 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await runToCompletion(store, task)
    await waitFor('three deliveries', settled(store, 3))
    assertDeliveredInOrder(hook.received, [task], accepted)
    // Both timed-out attempts were of the first event: the receiver saw it three times.
    assert.deepEqual(hook.received.map(eventKeyOf), [
      `${task}:2`,
      `${task}:2`,
      `${task}:2`,
      `${task}:3`,
      `${task}:4`,
    ])
    assert.equal(worker.stats().retried, 2)
  })

  test('connection refused until the receiver starts listening', async () => {
    const port = await closedPort()
    const { store, worker } = await setup()
    const tasks = [
      await createPushedTask(store, `http://127.0.0.1:${port}/hook`),
      await createPushedTask(store, `http://127.0.0.1:${port}/hook`),
    ]
    for (const id of tasks) await runToCompletion(store, id)
    worker.start()
    await waitFor('refused attempts', () => worker.stats().retried >= 4)
    const tried = (await store.listDeliveries({ state: 'pending', limit: 10 })).filter((d) => d.attempts > 0)
    assert.ok(tried.length > 0)
    for (const delivery of tried) assert.match(delivery.lastError ?? '', /ECONNREFUSED/)
    const accepted = new Set<Received>()
    const hook = await receiver((request) => {
      accepted.add(request)
      return { status: 200 }
    }, port)
    await waitFor('six deliveries', settled(store, 6))
    assertDeliveredInOrder(hook.received, tasks, accepted)
    assert.equal(hook.received.length, 6, 'refused attempts never reached anyone')
  })
})

describe('push worker: giving up', () => {
  test('a 4xx other than 408/429 is dead after one attempt', async () => {
    const hook = await receiver(() => ({ status: 404 }))
    const { store, worker } = await setup()
    const task = await createPushedTask(store, hook.url)
    await runToCompletion(store, task)
    worker.start()
    await waitFor('three dead deliveries', settled(store, 0, 3))
    const dead = await store.listDeliveries({ state: 'dead', limit: 10 })
    assert.deepEqual(
      dead.map((d) => [d.seq, d.attempts, d.lastError]),
      [
        [4, 1, 'HTTP 404'],
        [3, 1, 'HTTP 404'],
        [2, 1, 'HTTP 404'],
      ],
    )
    assert.equal(hook.received.length, 3)
    assert.deepEqual(worker.stats(), { delivered: 0, retried: 0, dead: 3, inFlight: 0 })
  })

  test('429 waits as long as Retry-After says', async () => {
    const hook = await receiver((_request, n) =>
      n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    )
    const { store, worker } = await setup()
    await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the delivery', settled(store, 1))
    const [first, second] = hook.received
    // With baseMs 5 the backoff alone would have retried within milliseconds.
    assert.ok(second!.at - first!.at >= 950, `retried after ${second!.at - first!.at} ms`)
    assert.equal(second!.headers['idempotency-key'], first!.headers['idempotency-key'])
  })

  test('dead after maxAttempts with the last error; retryDelivery sends it again', async () => {
    let healthy = false
    const hook = await receiver(() => ({ status: healthy ? 200 : 503 }))
    const { store, worker } = await setup({ maxAttempts: 3 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the dead delivery', settled(store, 0, 1))
    const [dead] = await store.listDeliveries({ state: 'dead', limit: 10 })
    assert.equal(dead?.taskId, task)
    assert.equal(dead?.attempts, 3)
    assert.equal(dead?.lastError, 'HTTP 503 (gave up after 3 attempts)')
    assert.equal(hook.received.length, 3)

    healthy = true
    const retried = await store.retryDelivery(dead!.id)
    assert.equal(retried?.state, 'pending')
    worker.wake()
    await waitFor('the re-driven delivery', settled(store, 1))
    const delivered = await store.getDelivery(dead!.id)
    assert.equal(delivered?.state, 'delivered')
    assert.equal(eventKeyOf(hook.received.at(-1)!), `${task}:2`)
  })

  test('dead once the next attempt would pass maxAgeMs', async () => {
    const hook = await receiver(() => ({ status: 500 }))
    const { store, worker } = await setup({ maxAgeMs: 1, baseMs: 60_000, capMs: 60_000 })
    await createPushedTask(store, hook.url)
    await new Promise((resolve) => setTimeout(resolve, 5))
    worker.start()
    await waitFor('the dead delivery', settled(store, 0, 1))
    const [dead] = await store.listDeliveries({ state: 'dead', limit: 1 })
    assert.equal(dead?.attempts, 1)
    assert.match(dead?.lastError ?? '', /^HTTP 500 \(gave up after 1 attempts: .*age limit\)$/)
  })

  test('a URL the policy refuses is dead at once, and nothing connects', async () => {
    const hook = await receiver()
    const store = memoryStore()
    const dispatcher = createGuardedDispatcher({})
    const worker = new PushWorker({ store, dispatcher, render, owner: 'replica-1', pollMs: 5 })
    onCleanup(() => store.close())
    onCleanup(() => dispatcher.close())
    onCleanup(() => worker.stop())
    await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the dead delivery', settled(store, 0, 1))
    const [dead] = await store.listDeliveries({ state: 'dead', limit: 1 })
    assert.equal(dead?.attempts, 1)
    assert.match(dead?.lastError ?? '', /^URL host "127\.0\.0\.1" is not allowed: .*loopback/)
    assert.equal(hook.connections(), 0)
  })
})
