/**
 * When the database fails a run's writes (PostgreSQL restarting, a broken connection), the run
 * cannot record how it ended. Its task must then be left as a crashed replica leaves it — leased
 * until the lease lapses, then taken over under the agent's policy — and never handed straight
 * back as fresh work, which would run a non-retryable agent twice. In-process, on the memory store
 * with appends failing on demand: the same engine code the replicas run, with the failure exact.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import { isTerminal } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope } from '../../src/model/task.ts'
import type { Store } from '../../src/store/contract.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { eventually } from '../helpers/server.ts'

const LEASE_MS = 400

/** A store whose appends fail while `down` is set, as a database that is unreachable would. */
const flakyStore = () => {
  const store = createMemoryStore()
  const state = { down: false }
  const flaky = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'append') {
        // A network error arrives as I/O does, on a later turn of the event loop.
        return (...args: Parameters<Store['append']>) =>
          state.down
            ? new Promise((_, reject) =>
                setImmediate(() => reject(new Error('Connection terminated unexpectedly'))),
              )
            : target.append(...args)
      }
      const value = Reflect.get(target, name, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as Store
  return { store: flaky, state, close: () => store.close() }
}

describe('a run whose writes the database refused', { timeout: 20_000 }, () => {
  let cleanup: (() => Promise<void>) | undefined
  afterEach(async () => {
    await cleanup?.()
  })

  const setup = async (retryable: boolean) => {
    const { store, state, close } = flakyStore()
    const runs = { count: 0 }
    let proceed!: () => void
    const gate = new Promise<void>((resolve) => {
      proceed = resolve
    })
    const agent = defineAgent({
      id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
      slug: 'writer',
      name: 'Writer',
      description: 'Waits, then logs; the log write meets the outage.',
      inputSchema: { type: 'object' },
      retryable,
      async handler(_input, ctx) {
        runs.count += 1
        if (runs.count === 1) await gate
        await ctx.log('info', 'writing')
        return { run: runs.count }
      },
    })
    const engine = new Engine({
      store,
      bus: new LocalBus(),
      agents: new AgentRegistry([agent]),
      leaseMs: LEASE_MS,
      pollMs: 20,
      shutdownGraceMs: 50,
    })
    await engine.start()
    cleanup = async () => {
      await engine.stop()
      await close()
    }
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'writer', input: {} })
    await engine.waitFor(scope, task.id, (s) => s === 'WORKING')
    // The outage: the handler's log, its failure status and the retry of that all fail; then the
    // database is back before the run ends, so a release of the lease would go through.
    state.down = true
    proceed()
    const outageEnds = new Promise<void>((resolve) =>
      setTimeout(() => {
        state.down = false
        resolve()
      }, 50),
    )
    await outageEnds
    const startedAt = Date.now()
    // Polled, not awaited on the bus: the engine's timers do not keep the process alive by themselves.
    const done = await eventually(
      async () => {
        const current = await engine.getTask(scope, task.id)
        return isTerminal(current.state) ? current : undefined
      },
      LEASE_MS * 10,
      'the task to end',
    )
    return { done, runs, waitedMs: Date.now() - startedAt }
  }

  it('a non-retryable agent is not run again: its task fails AGENT_INTERRUPTED once the lease lapses', async () => {
    const { done, runs } = await setup(false)
    assert.equal(runs.count, 1, 'the handler ran once')
    assert.equal(done.state, 'FAILED')
    assert.equal(done.error?.code, 'AGENT_INTERRUPTED')
  })

  it('a retryable agent runs again after the lease lapses and completes', async () => {
    const { done, runs, waitedMs } = await setup(true)
    assert.equal(runs.count, 2, 'once into the outage, once after the lease lapsed')
    assert.equal(done.state, 'COMPLETED')
    assert.ok(waitedMs >= LEASE_MS / 2, `taken over after ${waitedMs} ms, not at once`)
  })
})
