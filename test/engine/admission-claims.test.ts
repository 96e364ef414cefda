import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import { isTerminal } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope } from '../../src/model/task.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { instantAgent } from '../helpers/agents.ts'

/**
 * When a run ends, the replica claims more work only if some may be waiting: a claim is a store
 * write (a database round trip on PostgreSQL), and under load runs end by the thousand a second.
 * The poll is an hour here, so whatever runs after the first claim was started by a run's end or
 * by announced work, never by the timer.
 */
const HOUR = 3_600_000

const gates: (() => void)[] = []
const oneAtATime = defineAgent({
  id: '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d1',
  slug: 'one-at-a-time',
  name: 'One at a time',
  description: 'Concurrency 1; each run waits for the test to open its gate.',
  concurrency: 1,
  inputSchema: { type: 'object' },
  async handler() {
    await new Promise<void>((resolve) => gates.push(resolve))
    return {}
  },
})

const asking = defineAgent({
  id: '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d2',
  slug: 'asking',
  name: 'Asking',
  description: 'Asks one question, then completes with the answer.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    const answer = await ctx.ask('which?')
    return { answer: answer.input }
  },
})

const setUp = async () => {
  const store = createMemoryStore()
  let claims = 0
  const claim = store.claimTasks.bind(store)
  store.claimTasks = (request) => {
    claims += 1
    return claim(request)
  }
  const engine = new Engine({
    store,
    bus: new LocalBus(),
    agents: new AgentRegistry([instantAgent, oneAtATime, asking]),
    singleProcess: true,
    pollMs: HOUR,
  })
  await engine.start()
  return {
    store,
    engine,
    claims: () => claims,
    close: async () => {
      await engine.stop()
      await store.close()
    },
  }
}

describe('admission: claims after a run ends', () => {
  it('claims nothing when runs end with no work waiting', async () => {
    const { engine, claims, close } = await setUp()
    try {
      const atStart = claims()
      for (let i = 0; i < 5; i++) {
        const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'instant', input: { i } })
        assert.equal((await engine.waitFor(scope, task.id, isTerminal)).state, 'COMPLETED')
      }
      // stop() waits for every run to wind down: each run's end is behind us.
      await engine.stop()
      assert.equal(claims(), atStart, 'a run that ended with nothing waiting claimed again')
    } finally {
      await close()
    }
  })

  it('a task that waited for capacity runs as soon as a run frees it', { timeout: 20_000 }, async () => {
    const { engine, close } = await setUp()
    try {
      const first = await engine.submit({ caller: ANONYMOUS, agent: 'one-at-a-time', input: {} })
      const second = await engine.submit({ caller: ANONYMOUS, agent: 'one-at-a-time', input: {} })
      await engine.waitFor(scope, first.task.id, (state) => state === 'WORKING')
      assert.equal((await engine.getTask(scope, second.task.id)).state, 'SUBMITTED')
      gates.shift()?.()
      await engine.waitFor(scope, second.task.id, (state) => state === 'WORKING')
      gates.shift()?.()
      assert.equal((await engine.waitFor(scope, second.task.id, isTerminal)).state, 'COMPLETED')
    } finally {
      for (const open of gates.splice(0)) open()
      await close()
    }
  })

  it('an answer given while the asking run still holds the lease runs once the lease is released', {
    timeout: 20_000,
  }, async () => {
    const { store, engine, close } = await setUp()
    try {
      // The suspended run releases its lease only after the answer is stored: the claim the
      // answer's announcement makes finds the task still leased, and only the run's end can start it.
      let answered: () => void = () => {}
      const answer = new Promise<void>((resolve) => {
        answered = resolve
      })
      const release = store.releaseLease.bind(store)
      store.releaseLease = async (owner, taskId) => {
        await answer
        return release(owner, taskId)
      }
      const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'asking', input: {} })
      await engine.waitFor(scope, task.id, (state) => state === 'INPUT_REQUIRED')
      await engine.provideInput({ scope, taskId: task.id, input: { pick: 'b' } })
      answered()
      const done = await engine.waitFor(scope, task.id, isTerminal)
      assert.equal(done.state, 'COMPLETED')
      assert.deepEqual(done.output, { answer: { pick: 'b' } })
    } finally {
      await close()
    }
  })
})
