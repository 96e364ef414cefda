import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId } from '../../../src/model/ids.ts'
import {
  assertSameTask,
  type CurrentStore,
  completed,
  create,
  createTask,
  nextCreatedAt,
  rejectsWith,
  SCOPE,
  sleep,
  status,
} from './fixtures.ts'

const TTL = 60_000

/** claimTasks, renewLeases, releaseLease, expireLeases. */
export const leaseCases = (store: CurrentStore): void => {
  const claim = (owner: string, limit = 100, agents?: string[]) =>
    store().claimTasks({ owner, limit, ttlMs: TTL, ...(agents && { agents }) })
  const claimIds = async (owner: string, limit = 100, agents?: string[]) =>
    (await claim(owner, limit, agents)).map((c) => c.task.id)

  describe('claimTasks', () => {
    it('claims only tasks that need a run and whose lease is free', async () => {
      const runnable = await createTask(store())
      await create(store(), { lease: { owner: 'other', ttlMs: TTL } })
      const finished = await createTask(store())
      await store().append({ taskId: finished.id, events: [status('WORKING'), completed] })
      const claimed = await claim('runner-1')
      assert.deepEqual(
        claimed.map((c) => [c.task.id, c.interrupted]),
        [[runnable.id, false]],
      )
      assertSameTask(claimed[0]?.task, runnable)
      assert.deepEqual(await claim('runner-2'), [], 'a held lease is not claimable')
    })

    it('claims oldest first, up to the limit', async () => {
      const times = [nextCreatedAt(), nextCreatedAt(), nextCreatedAt()]
      // Inserted newest first, so insertion order and age disagree.
      const newest = await createTask(store(), { createdAt: times[2] })
      const middle = await createTask(store(), { createdAt: times[1] })
      const oldest = await createTask(store(), { createdAt: times[0] })
      assert.deepEqual(await claimIds('runner-1', 2), [oldest.id, middle.id])
      assert.deepEqual(await claimIds('runner-1', 2), [newest.id])
    })

    it('claims only tasks of the given agents', async () => {
      const a = await createTask(store(), { agent: 'a' })
      await createTask(store(), { agent: 'b' })
      const c = await createTask(store(), { agent: 'c' })
      assert.deepEqual(await claimIds('runner-1', 10, []), [])
      assert.deepEqual(await claimIds('runner-1', 10, ['a', 'c']), [a.id, c.id])
      assert.equal((await claimIds('runner-1', 10, ['a', 'c'])).length, 0)
    })

    it('flags a task interrupted when its previous lease was expired, not released', async () => {
      const task = await createTask(store())
      assert.deepEqual(
        (await claim('runner-1')).map((c) => c.interrupted),
        [false],
      )
      assert.equal(await store().expireLeases(), 1)
      const again = await claim('runner-2')
      assert.deepEqual(
        again.map((c) => [c.task.id, c.interrupted]),
        [[task.id, true]],
      )
      await rejectsWith(
        store().append({ taskId: task.id, events: [status('WORKING')], leaseOwner: 'runner-1' }),
        'LEASE_LOST',
      )
      await store().append({ taskId: task.id, events: [status('WORKING')], leaseOwner: 'runner-2' })
    })

    it('lets a lease lapse after its ttl', async () => {
      const task = await createTask(store())
      await store().claimTasks({ owner: 'runner-1', limit: 10, ttlMs: 250 })
      assert.deepEqual(await claim('runner-2'), [])
      await sleep(300)
      assert.deepEqual(
        (await claim('runner-2')).map((c) => [c.task.id, c.interrupted]),
        [[task.id, true]],
      )
    })
  })

  describe('renewLeases', () => {
    it('extends only the leases the owner still holds and returns their ids', async () => {
      const theirs = await createTask(store(), { agent: 'other' })
      await claim('runner-2', 10, ['other'])
      const mine = await createTask(store())
      await store().claimTasks({ owner: 'runner-1', limit: 1, ttlMs: 250 })
      const held = await store().renewLeases('runner-1', [mine.id, theirs.id, newId()], TTL)
      assert.deepEqual(held, [mine.id])
      await sleep(300)
      assert.deepEqual(await claim('runner-3'), [], 'the renewed lease outlives its first ttl')
      assert.deepEqual(await store().renewLeases('runner-1', [], TTL), [])
    })
  })

  describe('releaseLease', () => {
    it('leaves a SUBMITTED or WORKING task runnable', async () => {
      const submitted = await createTask(store())
      await claim('runner-1')
      await store().releaseLease('runner-1', submitted.id)
      assert.deepEqual(
        (await claim('runner-2')).map((c) => [c.task.id, c.interrupted]),
        [[submitted.id, false]],
      )
      await store().append({ taskId: submitted.id, events: [status('WORKING')], leaseOwner: 'runner-2' })
      await store().releaseLease('runner-2', submitted.id)
      assert.deepEqual(await claimIds('runner-3'), [submitted.id])
    })

    it('clears the need to run when the task waits for input', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await store().append({
        taskId: task.id,
        events: [status('WORKING'), status('INPUT_REQUIRED', { prompt: '?' })],
        leaseOwner: 'runner-1',
      })
      await store().releaseLease('runner-1', task.id)
      assert.deepEqual(await claim('runner-2'), [])
    })

    it('is ignored when called by a runner that does not hold the lease', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await store().releaseLease('runner-2', task.id)
      assert.deepEqual(await claim('runner-3'), [])
      await store().append({ taskId: task.id, events: [status('WORKING')], leaseOwner: 'runner-1' })
    })

    it('is not needed to stop a finished task from running again: a terminal append clears it', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await store().append({
        taskId: task.id,
        events: [status('WORKING'), completed],
        leaseOwner: 'runner-1',
      })
      await store().expireLeases()
      assert.deepEqual(await claim('runner-2'), [])
      await store().releaseLease('runner-1', task.id)
      assert.deepEqual(await claim('runner-2'), [])
    })
  })

  describe('append with releaseLease (a run that ends with its outcome)', () => {
    it('frees the lease in the same write: a finished task is not claimable, and stays so', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await store().append({
        taskId: task.id,
        events: [status('WORKING'), completed],
        leaseOwner: 'runner-1',
        releaseLease: true,
      })
      await store().expireLeases()
      assert.deepEqual(await claim('runner-2'), [])
      assert.deepEqual(await store().renewLeases('runner-1', [task.id], TTL), [], 'no lease is left to renew')
    })

    it('leaves a task that is still WORKING runnable at once, as releaseLease does', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await store().append({
        taskId: task.id,
        events: [status('WORKING')],
        leaseOwner: 'runner-1',
        releaseLease: true,
      })
      assert.deepEqual(await claimIds('runner-2'), [task.id])
    })

    it('is refused with LEASE_LOST, writing nothing, when another runner holds the lease', async () => {
      const task = await createTask(store())
      await claim('runner-1')
      await rejectsWith(
        store().append({
          taskId: task.id,
          events: [status('WORKING'), completed],
          leaseOwner: 'runner-2',
          releaseLease: true,
        }),
        'LEASE_LOST',
      )
      assert.equal((await store().getTask(SCOPE, task.id))?.state, 'SUBMITTED')
      assert.deepEqual(await store().renewLeases('runner-1', [task.id], TTL), [task.id])
    })
  })

  describe('expireLeases', () => {
    it('makes every lease, or one owner’s leases, claimable now and counts them', async () => {
      const first = await createTask(store())
      await claim('runner-1')
      const second = await createTask(store())
      await claim('runner-2')
      await createTask(store())
      assert.equal(await store().expireLeases('runner-1'), 1)
      const claimed = await claim('runner-3')
      assert.deepEqual(new Set(claimed.map((c) => c.task.id)).has(first.id), true)
      assert.equal(claimed.find((c) => c.task.id === first.id)?.interrupted, true)
      assert.equal(
        claimed.some((c) => c.task.id === second.id),
        false,
      )
      assert.equal(await store().expireLeases(), 3)
      assert.equal(await store().expireLeases('nobody'), 0)
    })
  })
}
