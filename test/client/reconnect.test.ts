/**
 * Following survives a broken connection, a silent one, and a server restart: the iterator goes
 * on by itself, and what it yields is exactly the task's events, none lost and none twice
 * (compared, by event id and content, with a full replay read afterwards).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { InterfaceKind } from '../../src/client/types.ts'
import { connect, type TaskUpdate } from '../../src/client.ts'
import { type ServerProcess, spawnServer } from '../helpers/process.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect, freePort, idsOf, shapes, type TcpProxy, tcpProxy } from './helpers.ts'

const KINDS: InterfaceKind[] = ['jsonrpc', 'rest', 'clawpedia']

let server: TestServer
let proxy: TcpProxy
before(async () => {
  proxy = await tcpProxy()
  // The cards name the proxy, so every call and every stream goes through it.
  server = await startServer({ publicUrl: `http://127.0.0.1:${proxy.port}`, pingMs: 50 })
  proxy.target = (server.switchboard.app.server.address() as AddressInfo).port
})
after(async () => {
  await server.close()
  await proxy.close()
})

const logsIn = (updates: TaskUpdate[]) => updates.filter((u) => u.type === 'log').length

/** The iteration matches a full replay exactly: same ids in order, same updates. */
const assertSameAsReplay = (got: TaskUpdate[], replay: TaskUpdate[]) => {
  const ids = idsOf(got)
  assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(',')}`)
  assert.deepEqual(ids, idsOf(replay), 'no event lost')
  assert.deepEqual(shapes(got), shapes(replay))
}

const options = {
  reconnect: { baseMs: 20, maxMs: 200, maxAttempts: 20 },
  heartbeat: { intervalMs: 60, missed: 3 },
  timeoutMs: 5000,
  cache: false as const,
}

for (const kind of KINDS) {
  describe(`over ${kind}`, () => {
    it('a connection cut mid-stream is resumed from the last event id', async () => {
      const agent = await connect(`http://127.0.0.1:${proxy.port}/agents/long-runner`, {
        ...options,
        prefer: [kind],
      })
      const task = await agent.send({ steps: 12, step_ms: 30 })
      const got: TaskUpdate[] = []
      let cuts = 0
      for await (const update of task.events()) {
        got.push(update)
        if (update.type === 'log' && (logsIn(got) === 3 || logsIn(got) === 7)) {
          proxy.cut()
          cuts += 1
        }
      }
      assert.equal(cuts, 2)
      assert.equal(logsIn(got), 12)
      assertSameAsReplay(got, await collect((await agent.task(task.id)).events()))
    })

    it('a connection that goes silent is declared dead after the missed heartbeats, and resumed', {
      timeout: 60_000,
    }, async () => {
      // No call timeout to fall back on: only the missed heartbeats can end the frozen stream, so
      // the test shows that without an upper bound on the time it took.
      const agent = await connect(`http://127.0.0.1:${proxy.port}/agents/long-runner`, {
        ...options,
        timeoutMs: 600_000,
        prefer: [kind],
      })
      const task = await agent.send({ steps: 8, step_ms: 40 })
      const got: TaskUpdate[] = []
      const arrivals: number[] = []
      let frozenAt = 0
      for await (const update of task.events()) {
        got.push(update)
        if (frozenAt > 0) arrivals.push(Date.now())
        if (update.type === 'log' && logsIn(got) === 2) {
          proxy.freeze()
          frozenAt = Date.now()
        }
      }
      // Frames already in flight may still arrive; then silence until the stall is noticed: three
      // missed 60 ms heartbeats, at least 180 ms (a loaded machine only makes it longer).
      const gaps = arrivals.map((at, i) => at - (i === 0 ? frozenAt : arrivals[i - 1]!))
      const stall = Math.max(...gaps)
      assert.ok(stall >= 150, `the longest silence after the freeze was ${stall} ms`)
      // Frozen links (idle pooled ones too) stay dead forever here; end them before reading again.
      proxy.cut()
      assertSameAsReplay(got, await collect((await agent.task(task.id)).events()))
    })
  })
}

/**
 * The restarted server must come back on the same HTTP port, so the test picks one; its gRPC port
 * would be that port + 1, which nothing reserved (another process may hold it): not wanted here.
 */
const GRPC_OFF = ['--grpc-port', 'off']

describe('a server restart mid-stream', () => {
  const dirs: string[] = []
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  for (const kind of ['jsonrpc', 'clawpedia'] as const) {
    it(`over ${kind}: the iterator waits out the restart and goes on where it was`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-client-restart-'))
      dirs.push(dataDir)
      const env = { PORT: String(await freePort()), SWITCHBOARD_DATA: dataDir }
      let current: ServerProcess = await spawnServer(GRPC_OFF, env)
      try {
        const agent = await connect(`${current.url}/agents/long-runner`, {
          ...options,
          prefer: [kind],
          reconnect: { baseMs: 100, maxMs: 500, maxAttempts: 40 },
        })
        // Retryable: the restarted server runs it again, and replay keeps the events it had.
        const task = await agent.send({ steps: 8, step_ms: 120 })
        const got: TaskUpdate[] = []
        let restart: Promise<void> | undefined
        for await (const update of task.events()) {
          got.push(update)
          if (update.type === 'log' && logsIn(got) === 2 && !restart) {
            const dying = current
            restart = (async () => {
              await dying.kill()
              current = await spawnServer(GRPC_OFF, env)
            })()
          }
        }
        await restart
        assert.equal(logsIn(got), 8)
        assert.equal(shapes(got).at(-1), 'status:COMPLETED')
        assertSameAsReplay(got, await collect((await agent.task(task.id)).events()))
      } finally {
        await current.stop()
      }
    })
  }
})
