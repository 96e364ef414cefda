import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { type ReceivedEvent, readSse } from '../helpers/sse.ts'

let server: TestServer
const runner = () => `${server.url}/agents/long-runner`
const create = async (input: object) =>
  (await request(`${runner()}/tasks`, { body: { input } })).body.task_id as string
const frames = (events: ReceivedEvent[]) => events.filter((e) => e.event !== 'ping')

before(async () => {
  server = await startServer({ pingMs: 60 })
})
after(() => server.close())

describe('the Clawpedia SSE stream', () => {
  it('delivers every event in order with strictly increasing ids, and closes after the terminal status', async () => {
    const id = await create({ steps: 8, step_ms: 5 })
    const { events, closedByServer } = await readSse(`${runner()}/tasks/${id}/stream`)
    assert.ok(closedByServer)
    const real = frames(events)
    const ids = real.map((e) => Number(e.id))
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    )
    assert.equal(new Set(ids).size, ids.length)
    assert.deepEqual(
      real.map((e) => (e.event === 'status' ? JSON.parse(e.data).status : e.event)),
      ['SUBMITTED', 'WORKING', ...Array(8).fill('log'), 'COMPLETED'],
    )
    const logs = real.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)
    assert.deepEqual(
      logs,
      logs.map((_: string, i: number) => `step ${i + 1}/8 (${Math.round(((i + 1) / 8) * 100)}%)`),
    )
  })

  it('resumes from Last-Event-ID with no gap and no duplicate', async () => {
    const id = await create({ steps: 12, step_ms: 15 })
    const first = await readSse(`${runner()}/tasks/${id}/stream`, {
      stopWhen: (_e, all) => frames(all).length === 5,
    })
    assert.ok(!first.closedByServer)
    const lastId = frames(first.events).at(-1)!.id!
    const rest = await readSse(`${runner()}/tasks/${id}/stream`, { headers: { 'last-event-id': lastId } })
    const joined = [...frames(first.events), ...frames(rest.events)].map((e) => Number(e.id))
    const full = frames((await readSse(`${runner()}/tasks/${id}/stream`)).events).map((e) => Number(e.id))
    assert.deepEqual(joined, full)
    assert.equal(frames(rest.events)[0]!.id, String(Number(lastId) + 1))
  })

  it('sends pings on an idle stream, carrying the last event id', async () => {
    const id = await create({ steps: 2, step_ms: 400 })
    const { events } = await readSse(`${runner()}/tasks/${id}/stream`)
    const pings = events.filter((e) => e.event === 'ping')
    assert.ok(pings.length >= 3, `expected pings while idle, got ${pings.length}`)
    for (const ping of pings) {
      assert.match(JSON.parse(ping.data).timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.ok(Number(ping.id) >= 0)
    }
    const realIds = new Set(frames(events).map((e) => e.id))
    assert.ok(
      pings.every((p) => p.id === '0' || realIds.has(p.id)),
      'a ping repeats the last id, it never invents one',
    )
  })

  it('replays a finished task from the start, then closes', async () => {
    const id = await create({ steps: 1, step_ms: 0 })
    await readSse(`${runner()}/tasks/${id}/stream`)
    const replay = await readSse(`${runner()}/tasks/${id}/stream`)
    assert.ok(replay.closedByServer)
    assert.equal(JSON.parse(frames(replay.events).at(-1)!.data).status, 'COMPLETED')
    const empty = await readSse(`${runner()}/tasks/${id}/stream`, { headers: { 'last-event-id': '999' } })
    assert.ok(empty.closedByServer)
    assert.equal(frames(empty.events).length, 0)
  })

  it('stays open through INPUT_REQUIRED and continues when input is provided', async () => {
    const base = `${server.url}/agents/report-builder`
    const id = (await request(`${base}/tasks`, { body: { input: { subject: 'bees' } } })).body.task_id
    const reading = readSse(`${base}/tasks/${id}/stream`)
    // Input is accepted only while the task waits for it: wait for that, and check the answer.
    await eventually(async () =>
      (await request(`${base}/tasks/${id}`)).body.status === 'INPUT_REQUIRED' ? true : undefined,
    )
    const answered = await request(`${base}/tasks/${id}/input`, { body: { input: { sections: ['Hives'] } } })
    assert.ok(answered.status < 300, JSON.stringify(answered.body))
    const { events, closedByServer } = await reading
    assert.ok(closedByServer)
    assert.deepEqual(
      frames(events)
        .filter((e) => e.event === 'status')
        .map((e) => JSON.parse(e.data).status),
      ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'WORKING', 'COMPLETED'],
    )
  })

  it('serves 300 concurrent subscribers the identical sequence', async () => {
    const id = await create({ steps: 5, step_ms: 40 })
    const readers = Array.from({ length: 300 }, () =>
      readSse(`${runner()}/tasks/${id}/stream`, { timeoutMs: 20_000 }),
    )
    const results = await Promise.all(readers)
    const reference = frames(results[0]!.events).map((e) => `${e.id}:${e.event}:${e.data}`)
    assert.equal(reference.length, 2 + 5 + 1)
    for (const result of results) {
      assert.ok(result.closedByServer)
      assert.deepEqual(
        frames(result.events).map((e) => `${e.id}:${e.event}:${e.data}`),
        reference,
      )
    }
    assert.equal(server.switchboard.app.server.listening, true)
  })

  it('a client that disconnects leaves no subscription behind', async () => {
    const id = await create({ steps: 50, step_ms: 20 })
    await readSse(`${runner()}/tasks/${id}/stream`, { stopWhen: (_e, all) => frames(all).length === 3 })
    // The server learns of the disconnect when the socket closes, not at a fixed time after.
    await eventually(
      async () => ((await request(`${server.url}/healthz`)).body.open_streams === 0 ? true : undefined),
      10_000,
      'no open streams',
    )
    await request(`${runner()}/tasks/${id}/cancel`, { method: 'POST' })
  })
})
