import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { buildArtifact } from '../../src/engine/build-artifact.ts'
import { fingerprintOf } from '../../src/engine/idempotency.ts'
import { PostgresBus } from '../../src/events/postgres-bus.ts'
import type { EventBody } from '../../src/model/events.ts'
import { newId } from '../../src/model/ids.ts'
import type { Store } from '../../src/store/contract.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'

const RUNNER = 'bench-runner'
const SCOPE = { tenant: 'default', owner: 'anonymous' }

/**
 * A bench task's writes, as Switchboard's engine makes them for the bench agent: the task created
 * with its lease and its message's idempotency key, then WORKING, the artifacts and COMPLETED in
 * one append that releases the lease (the run's batch). `store-cost.ts` and the store floor share
 * them, so both measure the same writes.
 */
export const writeBenchTask = async (
  store: Pick<Store, 'createTask' | 'append'>,
  task: {
    id: string
    contextId: string
    messageId: string
    fingerprint: string
    artifacts: number
    /** Called once the task's creation is committed: where a returnImmediately send answers. */
    created?: () => void
  },
): Promise<void> => {
  const { id, contextId, messageId, fingerprint, artifacts, created } = task
  await store.createTask({
    header: {
      id,
      tenant: SCOPE.tenant,
      owner: SCOPE.owner,
      agent: 'bench',
      contextId,
      createdAt: new Date().toISOString(),
    },
    input: { artifacts },
    message: { messageId, role: 'user', parts: [{ kind: 'data', data: { artifacts } }] },
    idempotency: { key: messageId, fingerprint, windowMs: 86_400_000 },
    lease: { owner: RUNNER, ttlMs: 60_000 },
  })
  created?.()
  const events: EventBody[] = [{ kind: 'status', state: 'WORKING' }]
  for (let i = 0; i < artifacts; i++) {
    const { artifact } = buildArtifact(id, { type: 'text', name: `a${i}`, text: `chunk ${i}` })
    events.push({ kind: 'artifact', artifact })
  }
  events.push({ kind: 'status', state: 'COMPLETED' })
  await store.append({ taskId: id, events, leaseOwner: RUNNER, releaseLease: true })
}

/**
 * `count` bench tasks of `artifacts` each written by a closed loop, 16 at a time so that the group
 * commit batches as under load, each with new ids and a random messageId and fingerprint (as
 * clients send them). The store scripts (store-cost.ts, wal-frames.ts) share it.
 */
export const writeBenchTasks = async (
  store: Pick<Store, 'createTask' | 'append'>,
  options: { count: number; artifacts: number },
): Promise<void> => {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started++ < options.count)
      await writeBenchTask(store, {
        id: newId(),
        contextId: newId(),
        messageId: randomUUID(),
        fingerprint: randomUUID(),
        artifacts: options.artifacts,
      })
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

/**
 * The store floors: each task written as Switchboard writes it with one of its stores (the store's
 * own group commit and all), the message's fingerprint included, and nothing of A2A around it.
 * On SQLite, between the durable floor (one row per task) and Switchboard SQLite, it tells the
 * store's guarantees apart from the protocol work: what a server keeping them costs before it
 * reads one A2A message. On PostgreSQL, with the store's LISTEN/NOTIFY bus listening as a
 * server's does, it is the database's side of the same writes: its database CPU per task, beside
 * Switchboard PostgreSQL's and the anchor lifecycle's, says how much of ours is the store's
 * writes and how much the rest of the server makes the database do.
 */
export class SwitchboardStoreFloor {
  readonly #store: Store
  readonly #bus: PostgresBus | undefined

  private constructor(store: Store, bus?: PostgresBus) {
    this.#store = store
    this.#bus = bus
  }

  static sqlite(dataDir: string): SwitchboardStoreFloor {
    return new SwitchboardStoreFloor(new SqliteStore({ filename: join(dataDir, 'switchboard.sqlite') }))
  }

  /** As `openStore` opens a PostgreSQL store for a server: migrated, with its bus listening. */
  static async postgres(url: string): Promise<SwitchboardStoreFloor> {
    const store = new PostgresStore({ connectionString: url })
    await store.init()
    const bus = await PostgresBus.connect({
      connectionString: url,
      replicaTag: store.replicaTag,
      readVersions: (taskIds) => store.versionsOf(taskIds),
    })
    return new SwitchboardStoreFloor(store, bus)
  }

  /**
   * Resolves once the task's two commits have landed, as a blocking send's answer waits for them;
   * `created` is called after the first, where Switchboard answers a returnImmediately send.
   */
  write(
    id: string,
    task: { artifacts?: readonly unknown[] },
    message: { messageId?: string },
    created?: () => void,
  ): Promise<void> {
    return writeBenchTask(this.#store, {
      id,
      contextId: id,
      messageId: message.messageId ?? id,
      fingerprint: fingerprintOf({ agent: 'bench', request: message }),
      artifacts: task.artifacts?.length ?? 0,
      created,
    })
  }

  /** The task read back through the store (GetTask), in A2A 1.0's JSON: one snapshot read. */
  async read(id: string): Promise<object | undefined> {
    const task = await this.#store.getTask(SCOPE, id)
    if (!task) return undefined
    return {
      id,
      contextId: task.contextId,
      status: { state: `TASK_STATE_${task.state}` },
      artifacts: task.artifacts.map((artifact) => ({
        artifactId: artifact.id,
        name: artifact.name,
        parts: [{ text: 'text' in artifact ? artifact.text : '' }],
      })),
    }
  }

  async close(): Promise<void> {
    await this.#bus?.close()
    await this.#store.close()
  }
}
