import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Task } from '../../../src/model/task.ts'
import {
  CLAWPEDIA,
  type CurrentStore,
  completed,
  create,
  fileArtifact,
  SCOPE,
  status,
  workingTask,
} from './fixtures.ts'

const HOUR = 3_600_000
const inAnHour = (): string => new Date(Date.now() + HOUR).toISOString()

/** deleteExpiredTasks: what retention deletes, and what it must never delete. */
export const retentionCases = (store: CurrentStore): void => {
  /** A completed task with a file artifact and a push config whose deliveries all settled. */
  const finishedTask = async (): Promise<{ task: Task; artifactId: string }> => {
    const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
    const artifact = fileArtifact(task.id, 3)
    await store().append({
      taskId: task.id,
      events: [status('WORKING'), { kind: 'artifact', artifact }, completed],
      blobs: new Map([[artifact.id, new Uint8Array([1, 2, 3])]]),
    })
    await settleAll()
    return { task, artifactId: artifact.id }
  }
  const settleAll = async (): Promise<void> => {
    for (const delivery of await store().claimDeliveries({ owner: 'p', limit: 100, ttlMs: 60_000 }))
      await store().settleDelivery('p', delivery.id, { result: 'dead', error: 'gone' })
    if ((await store().countDeliveries()).pending > 0) await settleAll()
  }

  describe('deleteExpiredTasks', () => {
    it('deletes a finished task with its events, artifact, file bytes, configs and deliveries', async () => {
      const { task, artifactId } = await finishedTask()
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 10 }), 1)
      assert.equal(await store().getTask(SCOPE, task.id), undefined)
      assert.deepEqual(await store().readEvents(task.id, 0), [])
      assert.equal(await store().getArtifact(SCOPE, artifactId), undefined)
      assert.deepEqual(await store().listPushConfigs(SCOPE, task.id), [])
      assert.deepEqual(await store().listDeliveries({ taskId: task.id, limit: 10 }), [])
    })

    it('keeps tasks finished after the cut-off', async () => {
      const { task } = await finishedTask()
      const before = new Date(Date.parse(task.createdAt) - HOUR).toISOString()
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: before, limit: 10 }), 0)
      assert.equal((await store().getTask(SCOPE, task.id))?.state, 'COMPLETED')
    })

    it('never deletes a task that is not terminal', async () => {
      const working = await workingTask(store())
      const { task: waiting } = await create(store())
      await store().append({ taskId: waiting.id, events: [status('WORKING'), status('INPUT_REQUIRED')] })
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 10 }), 0)
      assert.equal((await store().getTask(SCOPE, working.id))?.state, 'WORKING')
      assert.equal((await store().getTask(SCOPE, waiting.id))?.state, 'INPUT_REQUIRED')
    })

    it('keeps a finished task while one of its deliveries is pending, deletes it once settled', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA] })
      await store().append({ taskId: task.id, events: [status('WORKING'), completed] })
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 10 }), 0)
      assert.equal((await store().getTask(SCOPE, task.id))?.state, 'COMPLETED')
      await settleAll()
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 10 }), 1)
    })

    it('deletes in batches of at most `limit`, oldest first, until none is left', async () => {
      const tasks: Task[] = []
      for (let i = 0; i < 5; i += 1) tasks.push((await finishedTask()).task)
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 2 }), 2)
      assert.equal(await store().getTask(SCOPE, tasks[0]!.id), undefined)
      assert.equal(await store().getTask(SCOPE, tasks[1]!.id), undefined)
      assert.equal((await store().getTask(SCOPE, tasks[2]!.id))?.state, 'COMPLETED')
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 2 }), 2)
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 2 }), 1)
      assert.equal(await store().deleteExpiredTasks({ finishedBefore: inAnHour(), limit: 2 }), 0)
    })
  })
}
