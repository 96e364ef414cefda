import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS } from '../../src/model/caller.ts'
import { isTerminal, type TaskState } from '../../src/model/states.ts'
import { DEFAULT_SCOPE as scope } from '../../src/model/task.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'

const FORTY = 'x'.repeat(40)

/** Writes two 40-byte artifacts, asks, then tries a third: past a 100-byte cap on the replayed run too. */
const hoarder = defineAgent({
  id: '11111111-2222-4333-8444-555555555577',
  slug: 'hoarder',
  name: 'Hoarder',
  description: 'Stores artifacts until the cap says no.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    await ctx.artifact({ type: 'text', text: FORTY })
    await ctx.artifact({ type: 'text', text: FORTY })
    await ctx.ask('more?')
    try {
      await ctx.artifact({ type: 'text', text: FORTY })
      return { refused: null }
    } catch (error) {
      return { refused: (error as Error).message }
    }
  },
})

const store = createMemoryStore()
const engine = new Engine({
  store,
  bus: new LocalBus(),
  agents: new AgentRegistry([hoarder]),
  singleProcess: true,
  taskArtifactBytes: 100,
})
await engine.start()
after(async () => {
  await engine.stop()
  await store.close()
})

describe("a task's artifacts in all", () => {
  it('are capped: the artifact past the cap rejects, counting those recorded by earlier runs', async () => {
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'hoarder', input: {} })
    const settled = (state: TaskState) => isTerminal(state) || state === 'INPUT_REQUIRED'
    const asking = await engine.waitFor(scope, task.id, settled)
    assert.equal(asking.state, 'INPUT_REQUIRED')
    await engine.provideInput({ scope, taskId: task.id, input: {} })
    const done = await engine.waitFor(scope, task.id, isTerminal)
    assert.equal(done.state, 'COMPLETED')
    assert.match(String(done.output?.refused), /limited to 100 bytes in all; this one would make 120/)
    assert.equal(done.artifacts.length, 2)
  })
})
