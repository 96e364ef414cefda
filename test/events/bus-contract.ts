import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { setImmediate as tick } from 'node:timers/promises'
import type { EventBus, TaskNote } from '../../src/events/contract.ts'
import type { TaskEvent } from '../../src/model/events.ts'
import { newId } from '../../src/model/ids.ts'
import { nowIso } from '../../src/model/time.ts'

const log = (seq: number): TaskEvent => ({
  kind: 'log',
  level: 'INFO',
  message: `m${seq}`,
  seq,
  at: nowIso(),
})

/**
 * The bus contract, for every EventBus: in-process publish and subscribe, isolation of failing
 * listeners, work announcements, close. Cross-process behaviour is backend-specific and lives
 * beside each backend's test.
 */
export function busContract(name: string, makeBus: () => Promise<EventBus>): void {
  describe(`EventBus contract: ${name}`, () => {
    let bus: EventBus
    beforeEach(async () => {
      bus = await makeBus()
    })
    afterEach(async () => {
      await bus.close()
    })

    it('delivers published events to the subscribers of that task only, with the last seq', async () => {
      const task = newId()
      const mine: TaskNote[] = []
      const others: TaskNote[] = []
      bus.subscribe(task, (note) => mine.push(note))
      bus.subscribe(newId(), (note) => others.push(note))
      const events = [log(3), log(4)]
      bus.publish(task, events)
      await tick()
      assert.deepEqual(mine, [{ taskId: task, seq: 4, events }])
      assert.deepEqual(others, [])
    })

    it('delivers nothing for an empty publish', async () => {
      const task = newId()
      const notes: TaskNote[] = []
      bus.subscribe(task, (note) => notes.push(note))
      bus.publish(task, [])
      await tick()
      assert.deepEqual(notes, [])
    })

    it('stops delivering to a listener once it unsubscribes, and to that one only', async () => {
      const task = newId()
      const first: number[] = []
      const second: number[] = []
      const stop = bus.subscribe(task, (note) => first.push(note.seq))
      bus.subscribe(task, (note) => second.push(note.seq))
      bus.publish(task, [log(1)])
      await tick()
      stop()
      stop()
      bus.publish(task, [log(2)])
      await tick()
      assert.deepEqual(first, [1])
      assert.deepEqual(second, [1, 2])
    })

    it('isolates a failing listener from the others and from the publisher', async () => {
      const task = newId()
      const seen: number[] = []
      bus.subscribe(task, () => {
        throw new Error('listener bug')
      })
      bus.subscribe(task, (note) => seen.push(note.seq))
      assert.doesNotThrow(() => bus.publish(task, [log(1)]))
      await tick()
      assert.deepEqual(seen, [1])
    })

    it('calls work listeners on announceWork until they unsubscribe, isolating failures', async () => {
      let woken = 0
      bus.onWork(() => {
        throw new Error('listener bug')
      })
      const stop = bus.onWork(() => {
        woken += 1
      })
      assert.doesNotThrow(() => bus.announceWork())
      await tick()
      assert.equal(woken, 1)
      stop()
      bus.announceWork()
      await tick()
      assert.equal(woken, 1)
    })

    it('delivers nothing after close, and publishing then is harmless', async () => {
      const task = newId()
      const notes: TaskNote[] = []
      bus.subscribe(task, (note) => notes.push(note))
      await bus.close()
      assert.doesNotThrow(() => bus.publish(task, [log(1)]))
      await tick()
      assert.deepEqual(notes, [])
    })
  })
}
