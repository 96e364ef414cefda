import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, test } from 'node:test'
import {
  bodyOf,
  createPushedTask,
  eventKeyOf,
  onCleanup,
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
    await worker.stop({ drainMs: 2_000 })
    // Settled when stop returns: it waited for the answer, however long the machine took.
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
    // The request timeout must not end the attempt before the drain does: 1 s leaves the test that
    // much to call stop(). The claim lasts 2 × 1000 + 1000 ms, then another worker may take it.
    const { store, worker, extra } = await setupWorker({ timeoutMs: 1_000 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the first request', () => hook.received.length === 1)
    // The receiver never answers: stop returning at all, with the attempt unsettled, shows it did
    // not wait for the request (a timed-out request would be settled as a retry).
    await worker.stop({ drainMs: 20 })
    const [delivery] = await store.listDeliveries({ limit: 1 })
    assert.equal(delivery?.state, 'pending')
    assert.equal(delivery?.attempts, 0, 'an abandoned attempt is not settled')
    assert.deepEqual(worker.stats(), { delivered: 0, retried: 0, dead: 0, inFlight: 0 })

    const fresh = extra({ owner: 'replica-2' })
    fresh.start()
    await waitFor('the redelivery', settled(store, 1), 15_000)
    assert.deepEqual(hook.received.map(eventKeyOf), [`${task}:2`, `${task}:2`])
  })

  test('wake() sends new events at once, whatever pollMs is', async () => {
    const hook = await receiver()
    const { store, worker } = await setupWorker({ pollMs: 60_000 })
    const task = await createPushedTask(store, hook.url)
    worker.start()
    await waitFor('the opening status', settled(store, 1))
    await store.append({ taskId: task, events: [{ kind: 'status', state: 'WORKING' }] })
    worker.wake()
    // Any deadline far below pollMs shows the wake, not a poll, sent it.
    await waitFor('the new status', settled(store, 2), 15_000)
    assert.equal(bodyOf(hook.received.at(-1)!).state, 'WORKING')
  })

  test('concurrency bounds the requests in flight', async () => {
    // Requests are held until two are open, then answered together: the worker must reach its
    // bound of two (or the test times out) and can never exceed it, however slow the machine.
    let peak = 0
    const held: ServerResponse[] = []
    const hook = createServer((request, response) => {
      request.resume()
      held.push(response)
      peak = Math.max(peak, held.length)
      if (held.length >= 2) for (const waiting of held.splice(0)) waiting.writeHead(200).end()
    })
    hook.listen(0, '127.0.0.1')
    await once(hook, 'listening')
    onCleanup(async () => {
      hook.closeAllConnections()
      hook.close()
    })
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
    const { store, worker } = await setupWorker({ concurrency: 2 })
    for (let i = 0; i < 6; i++) await createPushedTask(store, url)
    worker.start()
    await waitFor('six deliveries', settled(store, 6), 15_000)
    assert.equal(peak, 2)
  })
})
