import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId } from '../../../src/model/ids.ts'
import type { Scope } from '../../../src/model/task.ts'
import { nowIso } from '../../../src/model/time.ts'
import {
  A2A,
  type CurrentStore,
  createTask,
  OTHER_OWNER,
  OTHER_TENANT,
  rejectsWith,
  SCOPE,
  status,
  textArtifact,
} from './fixtures.ts'

/** A scope without an owner: every task of its tenant (a caller with tasks:read:tenant or tasks:write:tenant). */
const TENANT_WIDE: Scope = { tenant: SCOPE.tenant }
const OTHER_TENANT_WIDE: Scope = { tenant: OTHER_TENANT.tenant }

/** getTask, listTasks, getArtifact, append and push configs with a tenant-wide scope. */
export const tenantScopeCases = (store: CurrentStore): void => {
  describe('tenant-wide scope', () => {
    it('reads and lists every owner’s tasks of its tenant, and no other tenant’s', async () => {
      const alice = await createTask(store(), SCOPE)
      const bob = await createTask(store(), OTHER_OWNER)
      const globex = await createTask(store(), OTHER_TENANT)
      assert.equal((await store().getTask(TENANT_WIDE, alice.id))?.id, alice.id)
      assert.equal((await store().getTask(TENANT_WIDE, bob.id))?.id, bob.id)
      assert.equal(await store().getTask(TENANT_WIDE, globex.id), undefined)
      const page = await store().listTasks(TENANT_WIDE, { pageSize: 10 })
      assert.deepEqual(page.tasks.map((t) => t.id).sort(), [alice.id, bob.id].sort())
      assert.equal(page.totalSize, 2)
      const filtered = await store().listTasks(TENANT_WIDE, { pageSize: 10, contextId: bob.contextId })
      assert.deepEqual(
        filtered.tasks.map((t) => t.id),
        [bob.id],
      )
      // Paged: the keyset cursor works without the owner filter too.
      const first = await store().listTasks(TENANT_WIDE, { pageSize: 1 })
      const second = await store().listTasks(TENANT_WIDE, { pageSize: 1, pageToken: first.nextPageToken })
      assert.deepEqual([...first.tasks, ...second.tasks].map((t) => t.id).sort(), [alice.id, bob.id].sort())
      // An owner's scope still sees only its own.
      assert.deepEqual(
        (await store().listTasks(SCOPE, { pageSize: 10 })).tasks.map((t) => t.id),
        [alice.id],
      )
      assert.deepEqual(
        (await store().listTasks(OTHER_TENANT_WIDE, { pageSize: 10 })).tasks.map((t) => t.id),
        [globex.id],
      )
    })

    it('reads another owner’s artifacts in its tenant and appends to their tasks', async () => {
      const bob = await createTask(store(), OTHER_OWNER)
      const artifact = textArtifact(bob.id)
      await store().append({ taskId: bob.id, events: [status('WORKING'), { kind: 'artifact', artifact }] })
      assert.equal((await store().getArtifact(TENANT_WIDE, artifact.id))?.artifact.id, artifact.id)
      assert.equal(await store().getArtifact(OTHER_TENANT_WIDE, artifact.id), undefined)
      assert.equal(await store().getArtifact(SCOPE, artifact.id), undefined)
      await rejectsWith(
        store().append({ taskId: bob.id, scope: OTHER_TENANT_WIDE, events: [status('CANCELLED')] }),
        'TASK_NOT_FOUND',
      )
      const { task } = await store().append({
        taskId: bob.id,
        scope: TENANT_WIDE,
        events: [status('CANCELLED')],
      })
      assert.equal(task.state, 'CANCELLED')
      assert.equal(task.owner, OTHER_OWNER.owner)
    })

    it('configures push on another owner’s task, the config staying the task owner’s', async () => {
      const bob = await createTask(store(), OTHER_OWNER)
      const config = { id: newId(), taskId: bob.id, createdAt: nowIso(), target: A2A }
      await rejectsWith(store().putPushConfig(OTHER_TENANT_WIDE, config), 'TASK_NOT_FOUND')
      await store().putPushConfig(TENANT_WIDE, config)
      // The owner sees the config a tenant-wide caller made on its task.
      assert.deepEqual(await store().getPushConfig(OTHER_OWNER, bob.id, config.id), config)
      assert.deepEqual(await store().listPushConfigs(TENANT_WIDE, bob.id), [config])
      assert.deepEqual(await store().listPushConfigs(OTHER_TENANT_WIDE, bob.id), [])
      assert.equal(await store().getPushConfig(SCOPE, bob.id, config.id), undefined)
      assert.equal(await store().deletePushConfig(OTHER_TENANT_WIDE, bob.id, config.id), false)
      assert.equal(await store().deletePushConfig(TENANT_WIDE, bob.id, config.id), true)
    })
  })
}
