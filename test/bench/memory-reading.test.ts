import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { settledMemory } from '../../bench/client/subscribers.ts'
import { type RunningServer, startServer } from '../../bench/harness/processes.ts'
import type { MemoryReading } from '../../bench/protocol.ts'

/**
 * The subscriber scenario's memory per stream leaves out the young generation's pages, which hold
 * nothing after the full collection but which V8 keeps resident (on Node 24 as much as 11 KB per
 * stream of the node:http floor at 10,000 streams): the server reports them after each collection
 * it is asked for, and a reading that is not the one asked for is refused, not used.
 */
describe('the bench servers’ memory reading', () => {
  let server: RunningServer
  before(async () => {
    server = await startServer('http-floor', {})
  })
  after(async () => {
    await server?.stop()
  })

  it('reports the young generation after each requested collection', { timeout: 60_000 }, async () => {
    const spec = { serverPid: server.ready.pid, memoryFile: server.ready.memoryFile, settleMs: 0 }
    const first = await settledMemory(spec, 1)
    const second = await settledMemory(spec, 2)
    for (const memory of [first, second]) {
      assert.ok(memory.young >= 0)
      assert.ok(memory.rss > memory.young, 'the young generation is part of the RSS')
    }
    const reading = JSON.parse(readFileSync(spec.memoryFile, 'utf8')) as MemoryReading
    assert.equal(reading.collections, 2)
  })

  it('refuses a reading that is not the collection asked for', { timeout: 60_000 }, async () => {
    const spec = { serverPid: server.ready.pid, memoryFile: `${server.ready.memoryFile}.absent`, settleMs: 0 }
    await assert.rejects(settledMemory(spec, 1), /no memory reading for collection 1/)
  })
})
