/**
 * The push worker is woken after a commit only when that commit enqueued deliveries: a task
 * nobody listens to costs the outbox nothing (before, every status and artifact event woke it, and
 * each wake is a claim: a query, a round trip on PostgreSQL).
 */
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { Engine } from '../../src/engine/engine.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS, scopeOf } from '../../src/model/caller.ts'
import type { PushTarget } from '../../src/model/push.ts'
import { isTerminal } from '../../src/model/states.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { instantAgent } from '../helpers/agents.ts'

const store = createMemoryStore()
let wakes = 0
const engine = new Engine({
  store,
  bus: new LocalBus(),
  agents: new AgentRegistry([instantAgent]),
  onOutboxWrite: () => {
    wakes += 1
  },
})
const caller = scopeOf(ANONYMOUS)
const hook: PushTarget = { kind: 'clawpedia', url: 'https://hooks.example.com/c' }

before(async () => {
  await store.init()
  await engine.start()
})
after(async () => {
  await engine.stop()
  await store.close()
})

const runToEnd = async (pushTargets?: PushTarget[]): Promise<number> => {
  wakes = 0
  const { task } = await engine.submit({
    caller: ANONYMOUS,
    agent: 'instant',
    input: {},
    ...(pushTargets && { pushTargets }),
  })
  await engine.waitFor(caller, task.id, isTerminal)
  return wakes
}

it('a task with no push target never wakes the push worker', async () => {
  assert.equal(await runToEnd(), 0)
})

it('a task with a push target wakes it for the commits that enqueued its notifications', async () => {
  // SUBMITTED at the creation; WORKING and COMPLETED in the run's commit(s).
  const woken = await runToEnd([hook])
  assert.ok(woken >= 2, `${woken} wakes`)
  const due = await store.listDeliveries({ limit: 100 })
  assert.ok(due.length >= 3)
})
