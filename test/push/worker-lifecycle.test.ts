import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import {
  bodyOf,
  createPushedTask,
  eventKeyOf,
  receiver,
  runCleanup,
  runToCompletion,
  settled,
  setupWorker,
  sleep,
  waitFor,
} from './helpers.ts'

afterEach(runCleanup)

describe('push worker lifecycle', () => {
  test('stop waits for the delivery in flight; a fresh worker resumes the rest', async () => {
    const hook = await receiver((_request, n) => (n === 0 ? { status: 200, delayMs: 300 } : { status: 200 }))
    const { store, worker, extra } = await setupWorker()
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the first request', () => hook.received.length === 1)
    const stopping = Date.now()
    await worker.stop({ drainMs: 2_000 })
    assert.ok(Date.now() - stopping >= 200, 'stop returned before the answer came')
    assert.deepEqual(await store.countDeliveries(), { pending: 0, delivered: 1, dead: 0 })
    assert.deepEqual(worker.stats(), { delivered: 1, retried: 0, dead: 0, inFlight: 0 })

    // Events appended while no worker runs wait in the outbox.
    await runToCompletion(store, task)
    await sleep(50)
    assert.equal(hook.received.length, 1)
    assert.equal((await store.countDeliveries()).pending, 2)

    const fresh = extra({ owner: 'replica-2' })
    fresh.start()
    await waitFor('the remaining deliveries', settled(store, 3))
    assert.deepEqual(
      hook.received.map((r) => bodyOf(r).state),
      ['SUBMITTED', 'WORKING', 'COMPLETED'],
    )
    assert.equal(fresh.stats().delivered, 2)
  })

  test('a delivery still in flight after drainMs is abandoned unsettled and sent again later', async () => {
    const hook = await receiver((_request, n) => (n === 0 ? 'hang' : { status: 200 }))
    // timeoutMs 200: the claim lasts 2 × 200 + 1000 ms, then another worker may take it.
    const { store, worker, extra } = await setupWorker({ timeoutMs: 200 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the first request', () => hook.received.length === 1)
    const stopping = Date.now()
    await worker.stop({ drainMs: 20 })
    assert.ok(Date.now() - stopping < 150, 'stop waited past drainMs')
    const [delivery] = await store.listDeliveries({ limit: 1 })
    assert.equal(delivery?.state, 'pending')
    assert.equal(delivery?.attempts, 0, 'an abandoned attempt is not settled')
    assert.deepEqual(worker.stats(), { delivered: 0, retried: 0, dead: 0, inFlight: 0 })

    const fresh = extra({ owner: 'replica-2' })
    fresh.start()
    await waitFor('the redelivery', settled(store, 1), 3_000)
    assert.deepEqual(hook.received.map(eventKeyOf), [`${task}:2`, `${task}:2`])
  })

  test('wake() sends new events at once, whatever pollMs is', async () => {
    const hook = await receiver()
    const { store, worker } = await setupWorker({ pollMs: 60_000 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the opening status', settled(store, 1))
    await store.append({ taskId: task, events: [{ kind: 'status', state: 'WORKING' }] })
    const appended = Date.now()
    worker.wake()
    await waitFor('the new status', settled(store, 2), 1_000)
    assert.ok(Date.now() - appended < 1_000)
    assert.equal(bodyOf(hook.received.at(-1)!).state, 'WORKING')
  })

  test('concurrency bounds the requests in flight', async () => {
    let open = 0
    let peak = 0
    const hook = await receiver(() => {
      open += 1
      peak = Math.max(peak, open)
      setTimeout(() => {
        open -= 1
      }, 40)
      return { status: 200, delayMs: 40 }
    })
    const { store, worker } = await setupWorker({ concurrency: 2 })
    for (let i = 0; i < 6; i++) await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('six deliveries', settled(store, 6))
    assert.equal(peak, 2)
  })
})
