/**
 * Push through the whole server: the outbox is written with the events, delivered in per-task order,
 * survives a crash, dead-letters visibly and is retried by an operator, and never reaches an
 * address the outbound policy refuses.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { verifySignature } from '../../src/outbound/signing.ts'
import { rpc } from '../a2a/helpers.ts'
import { spawnServer } from '../helpers/process.ts'
import { eventually, request, startServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'
import { closedPort, type Receiver, startReceiver } from '../push/helpers.ts'

const cleanup: (() => Promise<void> | void)[] = []
after(async () => {
  for (const close of cleanup.reverse()) await close()
})

/** Per task, the sequence numbers received in arrival order (from the Idempotency-Key `<task>:<config>:<seq>`). */
const seqsByTask = (receiver: Receiver): Map<string, number[]> => {
  const byTask = new Map<string, number[]>()
  for (const r of receiver.received) {
    const [taskId, , seq] = String(r.headers['idempotency-key']).split(':')
    byTask.set(taskId!, [...(byTask.get(taskId!) ?? []), Number(seq)])
  }
  return byTask
}

describe('push notifications end to end', () => {
  it('1,000 tasks, three status changes each, to one receiver: nothing lost, per-task order kept', async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const server = await startServer({
      notifications: { 'long-runner': { endpointUrl: receiver.url } },
      push: { concurrency: 32, pollMs: 50 },
    })
    cleanup.push(() => server.close())
    const base = `${server.url}/agents/long-runner`
    const ids: string[] = []
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(
        Array.from({ length: 100 }, () =>
          request(`${base}/tasks`, { body: { input: { steps: 1, step_ms: 0 } } }),
        ),
      )
      for (const response of created) ids.push(response.body.task_id)
    }
    await eventually(
      async () => (receiver.received.length >= 3000 ? true : undefined),
      60_000,
      '3,000 notifications',
    )
    // Once no delivery is pending none can be sent again: only then is "no duplicate" a finding.
    await eventually(
      async () => {
        const { counts } = (await request(`${server.url}/admin/deliveries/stats`)).body
        return counts.pending === 0 ? true : undefined
      },
      60_000,
      'every delivery settled',
    )
    const byTask = seqsByTask(receiver)
    assert.equal(byTask.size, 1000)
    let duplicates = 0
    for (const id of ids) {
      const seqs = byTask.get(id)!
      const unique = [...new Set(seqs)]
      duplicates += seqs.length - unique.length
      assert.deepEqual(
        unique,
        [...unique].sort((a, b) => a - b),
        `task ${id} out of order: ${seqs}`,
      )
      assert.equal(unique.length, 3, `task ${id}: ${seqs}`)
    }
    assert.equal(duplicates, 0, 'no duplicate deliveries in normal operation')
    const states = receiver.received.map((r) => JSON.parse(r.body).data.status)
    assert.equal(states.filter((s) => s === 'COMPLETED').length, 1000)
  })

  it("a task created over A2A notifies the agent's configured endpoint as well", async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const server = await startServer({
      notifications: { 'python-script-generator': { endpointUrl: receiver.url, authHeader: 'X-Hook: 1' } },
    })
    cleanup.push(() => server.close())
    const sent = await rpc(`${server.url}/agents/python-script-generator`, 'SendMessage', {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { topic: 'x', filename: 'x.py' } }],
      },
    })
    const taskId = sent.body.result.task.id
    await eventually(async () => (receiver.received.length >= 3 ? true : undefined))
    const bodies = receiver.received.map((r) => JSON.parse(r.body))
    assert.deepEqual(
      bodies.map((b) => [b.event_type, b.data.task_id, b.data.status]),
      [
        ['task.status.updated', taskId, 'SUBMITTED'],
        ['task.status.updated', taskId, 'WORKING'],
        ['task.status.updated', taskId, 'COMPLETED'],
      ],
    )
    assert.ok(receiver.received.every((r) => r.headers['x-hook'] === '1'))
  })

  it('signs every notification when a secret is configured', async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const server = await startServer({
      notifications: { 'python-script-generator': { endpointUrl: receiver.url } },
      push: { signingSecret: 'shh-0123456789' },
    })
    cleanup.push(() => server.close())
    await request(`${server.url}/tasks`, { body: { input: { topic: 'fibonacci', filename: 'f.py' } } })
    await eventually(async () => (receiver.received.length >= 3 ? true : undefined))
    for (const r of receiver.received) {
      const header = String(r.headers['switchboard-signature'])
      assert.ok(verifySignature({ secret: 'shh-0123456789', header, body: r.body }))
      assert.ok(!verifySignature({ secret: 'shh-0123456789', header, body: `${r.body} ` }))
    }
  })

  it('dead-letters after the last attempt, shows it to operators, and delivers it on retry', async () => {
    let healthy = false
    const receiver = await startReceiver(() => (healthy ? { status: 204 } : { status: 500 }))
    cleanup.push(() => receiver.close())
    const server = await startServer({
      notifications: { 'python-script-generator': { endpointUrl: receiver.url } },
      push: { maxAttempts: 2, baseMs: 10, capMs: 20, pollMs: 20 },
    })
    cleanup.push(() => server.close())
    const task = (await request(`${server.url}/tasks`, { body: { input: { topic: 'x', filename: 'x.py' } } }))
      .body
    const dead = await eventually(async () => {
      const { body } = await request(`${server.url}/admin/deliveries?state=dead`)
      return body.deliveries.length >= 1 ? body.deliveries : undefined
    })
    assert.equal(dead[0].task_id, task.task_id)
    assert.equal(dead[0].attempts, 2)
    assert.match(dead[0].last_error, /500/)
    assert.equal(JSON.stringify(dead).includes('authorization'), false)
    const stats = (await request(`${server.url}/admin/deliveries/stats`)).body.counts
    assert.ok(stats.dead >= 1)
    healthy = true
    const retried = await request(`${server.url}/admin/deliveries/${dead[0].id}/retry`, { method: 'POST' })
    assert.equal(retried.status, 200)
    assert.equal(retried.body.state, 'pending')
    await eventually(async () => {
      const { body } = await request(`${server.url}/admin/deliveries/${dead[0].id}`)
      return body.state === 'delivered' ? body : undefined
    })
    const again = await request(`${server.url}/admin/deliveries/${dead[0].id}/retry`, { method: 'POST' })
    assert.equal(again.status, 400, 'only dead deliveries are retried')
  })

  it('never connects to an address the outbound policy refuses', async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const server = await startServer({
      notifications: { 'python-script-generator': { endpointUrl: receiver.url } },
      outbound: { allow: [] },
    })
    cleanup.push(() => server.close())
    await request(`${server.url}/tasks`, { body: { input: { topic: 'x', filename: 'x.py' } } })
    const dead = await eventually(async () => {
      const { body } = await request(`${server.url}/admin/deliveries?state=dead`)
      return body.deliveries.length >= 3 ? body.deliveries : undefined
    })
    for (const delivery of dead) assert.match(delivery.last_error, /127\.0\.0\.1|loopback|not allowed/i)
    assert.equal(receiver.connections(), 0, 'the receiver never saw a connection')
  })

  it('the admin API refuses a wrong token', async () => {
    const server = await startServer({ admin: { token: 'adm1n' } })
    cleanup.push(() => server.close())
    assert.equal((await request(`${server.url}/admin/deliveries`)).status, 401)
    assert.equal(
      (await request(`${server.url}/admin/deliveries`, { headers: { authorization: 'Bearer nope' } })).status,
      401,
    )
    const ok = await request(`${server.url}/admin/deliveries`, { headers: { authorization: 'Bearer adm1n' } })
    assert.equal(ok.status, 200)
  })

  it('deliveries pending at kill -9 are all delivered after a restart, in order', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-push-crash-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const port = await closedPort()
    const config = join(dataDir, 'config.json')
    writeFileSync(config, JSON.stringify({ push: { baseMs: 50, capMs: 200 } }))
    const env = {
      SWITCHBOARD_DATA: dataDir,
      SWITCHBOARD_CONFIG: config,
      SWITCHBOARD_NOTIFY_URL: `http://127.0.0.1:${port}/hook`,
      SWITCHBOARD_OUTBOUND_ALLOW: '127.0.0.1',
    }
    const first = await spawnServer([], env)
    const ids: string[] = []
    for (let i = 0; i < 25; i++) {
      const { body } = await request(`${first.url}/tasks`, {
        body: { input: { topic: `t${i}`, filename: 'a.py' } },
      })
      ids.push(body.task_id)
    }
    for (const id of ids) await readSse(`${first.url}/tasks/${id}/stream`)
    await first.kill()

    const receiver = await startReceiver(undefined, port)
    cleanup.push(() => receiver.close())
    const second = await spawnServer([], env)
    cleanup.push(async () => {
      await second.stop()
    })
    await eventually(
      async () => (seqsByTask(receiver).size === 25 && receiver.received.length >= 75 ? true : undefined),
      15_000,
    )
    const byTask = seqsByTask(receiver)
    for (const id of ids) {
      const unique = [...new Set(byTask.get(id))]
      assert.deepEqual(unique, [2, 3, unique[2]!], `task ${id}: ${byTask.get(id)}`)
      assert.ok(unique[2]! > 3)
    }
    const states = receiver.received.map((r) => JSON.parse(r.body).data.status)
    assert.equal(states.filter((s) => s === 'COMPLETED').length, 25)
  })
})
