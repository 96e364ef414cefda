/**
 * /metrics through the whole server: a known workload (tasks completed, failed and cancelled,
 * pushes delivered and dead-lettered, HTTP errors, an open stream) is scraped and the parsed
 * numbers must match what happened; the route is guarded as /admin is; no label holds a task id.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { longRunner } from '../../src/demo/long-runner.ts'
import { newId } from '../../src/model/ids.ts'
import { rpc } from '../a2a/helpers.ts'
import { failingAgent, instantAgent } from '../helpers/agents.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { type Receiver, startReceiver } from '../push/helpers.ts'
import { type Exposition, parseExposition, sampleSum, sampleValue } from './prometheus-text.ts'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

const scrape = async (url: string, headers: Record<string, string> = {}): Promise<Exposition> => {
  const response = await fetch(`${url}/metrics`, { headers })
  assert.equal(response.status, 200)
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  return parseExposition(await response.text())
}

const finalState = (url: string, slug: string, taskId: string) =>
  eventually(
    async () => {
      const { body } = await request(`${url}/agents/${slug}/tasks/${taskId}`)
      return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(body.status) ? body.status : undefined
    },
    10_000,
    `task ${taskId} to finish`,
  )

describe('/metrics after a known workload', () => {
  let server: TestServer
  let healthy: Receiver
  let broken: Receiver
  let metrics: Exposition
  let during: Exposition
  let deliveryCounts: { pending: number; delivered: number; dead: number }
  let notFoundCode: string

  before(async () => {
    healthy = await startReceiver(() => ({ status: 204 }))
    broken = await startReceiver(() => ({ status: 500 }))
    server = await startServer({
      agents: [instantAgent, failingAgent, longRunner],
      notifications: { instant: { endpointUrl: healthy.url }, failing: { endpointUrl: broken.url } },
      push: { maxAttempts: 2, baseMs: 10, capMs: 20, pollMs: 20 },
    })
    const { url } = server
    const create = async (slug: string, input: object) => {
      const response = await request(`${url}/agents/${slug}/tasks`, { body: { input } })
      assert.equal(response.status, 202)
      return response.body.task_id as string
    }
    const instant = [await create('instant', {}), await create('instant', {}), await create('instant', {})]
    const failing = [await create('failing', { reason: 'a' }), await create('failing', { reason: 'b' })]
    const long = await create('long-runner', { steps: 10_000, step_ms: 50 })

    // A stream open on the running task: the gauges are read while it is open.
    const stream = await fetch(`${url}/agents/long-runner/tasks/${long}/stream`)
    assert.equal(stream.status, 200)
    const reader = stream.body!.getReader()
    await reader.read()
    await eventually(async () => {
      const { body } = await request(`${url}/agents/long-runner/tasks/${long}`)
      return body.status === 'WORKING' ? true : undefined
    })
    during = await scrape(url)
    assert.equal(
      (await request(`${url}/agents/long-runner/tasks/${long}/cancel`, { method: 'POST' })).status < 300,
      true,
    )
    // The stream ends once the task is cancelled.
    while (!(await reader.read()).done) {}

    for (const id of instant) assert.equal(await finalState(url, 'instant', id), 'COMPLETED')
    for (const id of failing) assert.equal(await finalState(url, 'failing', id), 'FAILED')
    assert.equal(await finalState(url, 'long-runner', long), 'CANCELLED')

    // HTTP errors: an unknown task (404) and a body that is not JSON (400).
    const missing = await request(`${url}/agents/instant/tasks/${newId()}`)
    assert.equal(missing.status, 404)
    notFoundCode = missing.body.error.code
    assert.equal(
      (
        await request(`${url}/agents/instant/tasks`, {
          raw: '{',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    )

    // A2A JSON-RPC answers errors with HTTP 200: they count as handler errors all the same.
    const rpcMissing = await rpc(`${url}/agents/instant`, 'GetTask', { id: newId() })
    assert.equal(rpcMissing.body.error.data[0].metadata.code, 'TASK_NOT_FOUND')
    assert.ok((await rpc(`${url}/agents/instant`, 'NoSuchMethod', {})).body.error)

    deliveryCounts = await eventually(
      async () => {
        const { counts } = (await request(`${url}/admin/deliveries/stats`)).body
        return counts.pending === 0 && counts.dead > 0 ? counts : undefined
      },
      15_000,
      'every delivery settled',
    )
    metrics = await scrape(url)
  })
  after(async () => {
    await server?.close()
    await healthy?.close()
    await broken?.close()
  })

  it('counts tasks created and finished by agent and final state, with a duration each', () => {
    assert.equal(sampleValue(metrics, 'switchboard_tasks_created_total', { agent: 'instant' }), 3)
    assert.equal(sampleValue(metrics, 'switchboard_tasks_created_total', { agent: 'failing' }), 2)
    assert.equal(sampleValue(metrics, 'switchboard_tasks_created_total', { agent: 'long-runner' }), 1)
    const finished = [
      ['instant', 'COMPLETED', 3],
      ['failing', 'FAILED', 2],
      ['long-runner', 'CANCELLED', 1],
    ] as const
    for (const [agent, state, count] of finished) {
      assert.equal(sampleValue(metrics, 'switchboard_tasks_finished_total', { agent, state }), count)
      assert.equal(sampleValue(metrics, 'switchboard_task_duration_seconds_count', { agent, state }), count)
      assert.equal(
        sampleValue(metrics, 'switchboard_task_duration_seconds_bucket', { agent, state, le: '+Inf' }),
        count,
      )
      assert.equal(
        sampleValue(metrics, 'switchboard_task_time_to_first_event_seconds_count', { agent }),
        count,
      )
    }
    assert.equal(sampleSum(metrics, 'switchboard_tasks_finished_total'), 6)
    assert.equal(metrics.types.get('switchboard_task_duration_seconds'), 'histogram')
    assert.equal(metrics.types.get('switchboard_tasks_finished_total'), 'counter')
  })

  it('shows the running task and its open stream while they last, and neither after', () => {
    assert.equal(sampleValue(during, 'switchboard_tasks_open', { agent: 'long-runner', state: 'running' }), 1)
    assert.equal(sampleValue(during, 'switchboard_open_streams', { dialect: 'clawpedia' }), 1)
    assert.equal(sampleSum(metrics, 'switchboard_tasks_open'), 0)
    assert.equal(sampleSum(metrics, 'switchboard_open_streams'), 0)
  })

  it('counts HTTP requests by route pattern and status, errors by code', () => {
    const created = { method: 'POST', route: '/agents/instant/tasks', status: '202' }
    assert.equal(sampleValue(metrics, 'switchboard_http_requests_total', created), 3)
    assert.equal(sampleValue(metrics, 'switchboard_http_request_duration_seconds_count', created), 3)
    const missing = { method: 'GET', route: '/agents/instant/tasks/:taskId', status: '404' }
    assert.equal(sampleValue(metrics, 'switchboard_http_requests_total', missing), 1)
    const badJson = { method: 'POST', route: '/agents/instant/tasks', status: '400' }
    assert.equal(sampleValue(metrics, 'switchboard_http_requests_total', badJson), 1)
    assert.equal(notFoundCode, 'TASK_NOT_FOUND')
    // One from the Clawpedia route, one from A2A JSON-RPC.
    assert.equal(sampleValue(metrics, 'switchboard_handler_errors_total', { code: 'TASK_NOT_FOUND' }), 2)
    assert.equal(sampleValue(metrics, 'switchboard_handler_errors_total', { code: 'MethodNotFoundError' }), 1)
    const jsonRpc = { method: 'POST', route: '/agents/instant/a2a/jsonrpc', status: '200' }
    assert.equal(sampleValue(metrics, 'switchboard_http_requests_total', jsonRpc), 2)
  })

  it('counts push deliveries by outcome, retries and dead letters, as the outbox and receivers saw them', () => {
    assert.equal(
      sampleValue(metrics, 'switchboard_push_deliveries_total', { outcome: 'delivered' }),
      deliveryCounts.delivered,
    )
    assert.equal(healthy.received.length, deliveryCounts.delivered)
    assert.equal(
      sampleValue(metrics, 'switchboard_push_deliveries_total', { outcome: 'dead' }),
      deliveryCounts.dead,
    )
    // Two attempts each: every dead letter was retried once before it died.
    assert.equal(
      sampleValue(metrics, 'switchboard_push_deliveries_total', { outcome: 'retry' }),
      deliveryCounts.dead,
    )
    assert.equal(broken.received.length, 2 * deliveryCounts.dead)
    assert.equal(sampleValue(metrics, 'switchboard_push_outbox', { state: 'dead' }), deliveryCounts.dead)
    assert.equal(sampleValue(metrics, 'switchboard_push_outbox', { state: 'pending' }), 0)
    assert.equal(sampleValue(metrics, 'switchboard_push_oldest_pending_age_seconds'), 0)
  })

  it('times store commits: one create per task, an event count per append', () => {
    assert.equal(
      sampleValue(metrics, 'switchboard_store_commit_duration_seconds_count', { operation: 'create' }),
      6,
    )
    const appends = sampleValue(metrics, 'switchboard_store_commit_duration_seconds_count', {
      operation: 'append',
    })
    assert.ok(appends >= 6, `${appends} appends`)
    assert.equal(sampleValue(metrics, 'switchboard_store_commit_events_count'), appends)
    assert.ok(sampleValue(metrics, 'switchboard_store_commit_events_sum') >= appends)
    assert.equal(sampleValue(metrics, 'switchboard_lease_takeovers_total'), 0)
  })

  it('never puts a task id in a label', () => {
    for (const sample of metrics.samples)
      for (const [label, value] of Object.entries(sample.labels))
        assert.doesNotMatch(value, UUID, `${sample.name} ${label}="${value}"`)
  })
})
