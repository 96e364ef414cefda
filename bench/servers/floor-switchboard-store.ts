import { join } from 'node:path'
import { buildArtifact } from '../../src/engine/build-artifact.ts'
import { fingerprintOf } from '../../src/engine/idempotency.ts'
import type { EventBody } from '../../src/model/events.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'

const RUNNER = 'bench-runner'

/**
 * A bench task's writes, as Switchboard's engine makes them for the bench agent: the task created
 * with its lease and its message's idempotency key, then WORKING, the artifacts and COMPLETED in
 * one append that releases the lease (the run's batch). `store-cost.ts` and the store floor share
 * them, so both measure the same writes.
 */
export const writeBenchTask = async (
  store: SqliteStore,
  task: { id: string; contextId: string; messageId: string; fingerprint: string; artifacts: number },
): Promise<void> => {
  const { id, contextId, messageId, fingerprint, artifacts } = task
  await store.createTask({
    header: {
      id,
      tenant: 'default',
      owner: 'anonymous',
      agent: 'bench',
      contextId,
      createdAt: new Date().toISOString(),
    },
    input: { artifacts },
    message: { messageId, role: 'user', parts: [{ kind: 'data', data: { artifacts } }] },
    idempotency: { key: messageId, fingerprint, windowMs: 86_400_000 },
    lease: { owner: RUNNER, ttlMs: 60_000 },
  })
  const events: EventBody[] = [{ kind: 'status', state: 'WORKING' }]
  for (let i = 0; i < artifacts; i++) {
    const { artifact } = buildArtifact(id, { type: 'text', name: `a${i}`, text: `chunk ${i}` })
    events.push({ kind: 'artifact', artifact })
  }
  events.push({ kind: 'status', state: 'COMPLETED' })
  await store.append({ taskId: id, events, leaseOwner: RUNNER, releaseLease: true })
}

/**
 * The store floor: each task written as Switchboard SQLite writes it (its default store, group
 * commit and all), the message's fingerprint included, and nothing of A2A around it. Between the
 * durable floor (one row per task) and Switchboard SQLite, it tells the store's guarantees apart
 * from the protocol work: what a server keeping them costs before it reads one A2A message.
 */
export class SwitchboardStoreFloor {
  readonly #store: SqliteStore

  constructor(dataDir: string) {
    this.#store = new SqliteStore({ filename: join(dataDir, 'switchboard.sqlite') })
  }

  /** Resolves once the task's two commits have landed, as a blocking send's answer waits for them. */
  write(
    id: string,
    task: { artifacts?: readonly unknown[] },
    message: { messageId?: string },
  ): Promise<void> {
    return writeBenchTask(this.#store, {
      id,
      contextId: id,
      messageId: message.messageId ?? id,
      fingerprint: fingerprintOf({ agent: 'bench', request: message }),
      artifacts: task.artifacts?.length ?? 0,
    })
  }

  close(): Promise<void> {
    return this.#store.close()
  }
}
