import assert from 'node:assert/strict'
import type { A2aPushTarget } from '../../../src/dialects/a2a/push-target.ts'
import type { ClawpediaPushTarget } from '../../../src/dialects/clawpedia/push-target.ts'
import type { Artifact } from '../../../src/model/artifacts.ts'
import { isSwitchboardError } from '../../../src/model/errors.ts'
import type { EventBody } from '../../../src/model/events.ts'
import { newId } from '../../../src/model/ids.ts'
import type { Owner, Task, TaskHeader } from '../../../src/model/task.ts'
import { nowIso } from '../../../src/model/time.ts'
import type { CreateTaskRequest, CreateTaskResult, Store } from '../../../src/store/contract.ts'

export const SCOPE: Owner = { tenant: 'acme', owner: 'alice' }
/** Same tenant, another owner; and another tenant with the same owner name: both must see nothing. */
export const OTHER_OWNER: Owner = { tenant: 'acme', owner: 'bob' }
export const OTHER_TENANT: Owner = { tenant: 'globex', owner: 'alice' }
export const FOREIGN_SCOPES = [OTHER_OWNER, OTHER_TENANT] as const

export const CLAWPEDIA: ClawpediaPushTarget = {
  kind: 'clawpedia',
  url: 'https://hooks.example.com/c',
  authHeader: 'X: y',
}
export const A2A: A2aPushTarget = {
  kind: 'a2a',
  url: 'https://hooks.example.com/a',
  token: 'tok',
  artifacts: true,
}

// Creation times strictly increase across the suite, so "oldest first" has one right answer.
let lastCreatedAt = Date.now() - 3_600_000
export const nextCreatedAt = (): string => {
  lastCreatedAt = Math.max(lastCreatedAt + 1, Date.now() - 3_600_000)
  return new Date(lastCreatedAt).toISOString()
}

export const header = (overrides: Partial<TaskHeader> = {}): TaskHeader => ({
  id: newId(),
  ...SCOPE,
  agent: 'echo',
  contextId: newId(),
  createdAt: nextCreatedAt(),
  ...overrides,
})

export const create = (
  store: Store,
  request: Partial<Omit<CreateTaskRequest, 'header'>> & { header?: Partial<TaskHeader> } = {},
): Promise<CreateTaskResult> =>
  store.createTask({ input: { n: 1 }, ...request, header: header(request.header) })

export const createTask = async (store: Store, overrides: Partial<TaskHeader> = {}): Promise<Task> =>
  (await create(store, { header: overrides })).task

/** A task that has started: SUBMITTED → WORKING. */
export const workingTask = async (store: Store, overrides: Partial<TaskHeader> = {}): Promise<Task> => {
  const task = await createTask(store, overrides)
  return (await store.append({ taskId: task.id, events: [{ kind: 'status', state: 'WORKING' }] })).task
}

export const status = (state: Task['state'], extra: Partial<EventBody> = {}): EventBody =>
  ({ kind: 'status', state, ...extra }) as EventBody

export const completed: EventBody = { kind: 'status', state: 'COMPLETED', output: { ok: true } }
export const cancelled: EventBody = { kind: 'status', state: 'CANCELLED' }

export const textArtifact = (taskId: string, text = 'hello'): Artifact => ({
  id: newId(),
  taskId,
  type: 'text',
  text,
  createdAt: nowIso(),
})

export const fileArtifact = (taskId: string, size: number): Artifact => ({
  id: newId(),
  taskId,
  type: 'file',
  filename: 'report.bin',
  mediaType: 'application/octet-stream',
  size,
  createdAt: nowIso(),
})

/** Asserts that `promise` rejects with a SwitchboardError of `code`. */
export const rejectsWith = (promise: Promise<unknown>, code: string): Promise<void> =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(isSwitchboardError(error), `expected a SwitchboardError, got ${String(error)}`)
    assert.equal(error.code, code)
    return true
  })

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const ids = (items: readonly { id: string }[]): string[] => items.map((item) => item.id)

/** Runs `work` over `items`, at most `width` at a time (keeps setup fast without flooding a pool). */
export const inBatches = async <T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>) => {
  const results: R[] = []
  for (let i = 0; i < items.length; i += width) {
    results.push(...(await Promise.all(items.slice(i, i + width).map(work))))
  }
  return results
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i)

/** The store under test, replaced before each case. */
export type CurrentStore = () => Store

/**
 * Tasks compared as stored: the fold leaves optional fields present but undefined (prompt, …),
 * which a stored snapshot (JSON) drops. Both mean "absent".
 */
export const assertSameTask = (actual: unknown, expected: unknown, message?: string): void =>
  assert.deepEqual(asJson(actual), asJson(expected), message)

const asJson = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value))
