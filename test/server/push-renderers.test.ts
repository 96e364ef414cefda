/** The assembly's push renderers: each target kind to its dialect, an unknown kind a dead delivery. */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { newId } from '../../src/model/ids.ts'
import type { Delivery, PushTarget } from '../../src/model/push.ts'
import { nowIso } from '../../src/model/time.ts'
import { pushRenderers } from '../../src/server/push-renderers.ts'
import { deliveryOf, echoTask, receiver, runCleanup, settled, setupWorker, waitFor } from '../push/helpers.ts'

afterEach(runCleanup)

const AT = '2026-01-02T03:04:05.678Z'
const TASK_ID = '5d1e6a0c-3b7f-4c2a-9e8d-1f2a3b4c5d6e'
const AGENT_ID = '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a61'

const render = pushRenderers({
  baseUrlOf: (slug) => `https://switchboard.example/agents/${slug}`,
  agentIdOf: () => AGENT_ID,
})

const delivery = (target: PushTarget): Delivery =>
  deliveryOf(
    { kind: 'status', state: 'WORKING', seq: 3, at: AT },
    echoTask({ id: TASK_ID, createdAt: AT }, { state: 'WORKING' }),
    target,
  )

describe('pushRenderers', () => {
  it('renders a Clawpedia target as a status notification with its header line', async () => {
    const target = { kind: 'clawpedia', url: 'https://hooks.example/c', authHeader: 'X-Hook-Token: abc' }
    const { body, headers } = await render(delivery(target))
    assert.deepEqual(headers, { 'content-type': 'application/json', 'x-hook-token': 'abc' })
    const payload = JSON.parse(body)
    assert.equal(payload.event_type, 'task.status.updated')
    assert.equal(payload.data.task_id, TASK_ID)
    assert.equal(payload.data.agent_id, AGENT_ID)
  })

  it('renders an A2A target as a StreamResponse with its token', async () => {
    const target = { kind: 'a2a', url: 'https://hooks.example/a', token: 'tok', artifacts: true }
    const { body, headers } = await render(delivery(target))
    assert.equal(headers['content-type'], 'application/a2a+json')
    assert.equal(headers['x-a2a-notification-token'], 'tok')
    assert.equal(JSON.parse(body).statusUpdate.taskId, TASK_ID)
  })

  it('refuses a kind no dialect renders, naming it', () => {
    assert.throws(() => render(delivery({ kind: 'grpc', url: 'https://hooks.example/g' })), {
      name: 'TypeError',
      message: 'no dialect renders push targets of kind "grpc"',
    })
    assert.throws(() => render(delivery({ kind: 'toString', url: 'https://hooks.example/g' })), TypeError)
  })

  it('a delivery to an unknown kind goes dead with the reason; the worker goes on', async () => {
    const hook = await receiver()
    const { store, worker } = await setupWorker({ render })
    const header = (agent: string) => ({
      id: newId(),
      tenant: 'default',
      owner: 'default',
      agent,
      contextId: newId(),
      createdAt: nowIso(),
    })
    await store.createTask({
      header: header('echo'),
      input: {},
      pushTargets: [{ kind: 'grpc', url: hook.url }],
    })
    await store.createTask({
      header: header('echo'),
      input: {},
      pushTargets: [{ kind: 'clawpedia', url: hook.url }],
    })
    worker.start()
    await waitFor('one dead, one delivered', settled(store, 1, 1))
    const [dead] = await store.listDeliveries({ state: 'dead', limit: 1 })
    assert.equal(
      dead?.lastError,
      'rendering the notification failed: no dialect renders push targets of kind "grpc"',
    )
    assert.equal(hook.received.length, 1)
  })
})
