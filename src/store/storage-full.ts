import { SwitchboardError } from '../model/errors.ts'
import type { Store } from './contract.ts'

/** How long readiness reports a store that could not write for lack of space (docs/errors.md). */
export const STORAGE_FULL_HOLD_MS = 30_000

/** SQLite's result code and PostgreSQL's SQLSTATE (class 53, disk_full) for a disk with no space left. */
const FULL_CODES = new Set(['SQLITE_FULL', '53100'])

/** Every contract method that writes: the ones a full disk fails. */
const WRITES = [
  'createTask',
  'append',
  'claimTasks',
  'renewLeases',
  'releaseLease',
  'expireLeases',
  'putPushConfig',
  'deletePushConfig',
  'claimDeliveries',
  'settleDelivery',
  'retryDelivery',
  'createApiKey',
  'revokeApiKey',
] as const satisfies readonly (keyof Store)[]

type Method = (...args: unknown[]) => Promise<unknown>

/**
 * The store, with a full disk made visible: a write that fails for lack of space is a
 * STORAGE_FULL error (507, not a 500 that reads as a bug), and for `holdMs` after it `ping`
 * fails with it too, so /readyz sends traffic elsewhere. A hold rather than "until a write
 * succeeds": an unready replica gets no requests, so it could not find out that space came back.
 * A proxy, so any store (and its getters) passes through unchanged; each method is bound once.
 */
export const watchStorageFull = <S extends Store>(store: S, holdMs = STORAGE_FULL_HOLD_MS): S => {
  let fullAt = Number.NEGATIVE_INFINITY
  const methods = store as unknown as Record<string, Method>
  const own = new Map<PropertyKey, Method>()
  for (const name of WRITES) {
    const write = methods[name]!.bind(store)
    own.set(name, (...args) =>
      write(...args).catch((error: unknown) => {
        const code = (error as { code?: unknown } | undefined)?.code
        if (typeof code !== 'string' || !FULL_CODES.has(code)) throw error
        fullAt = Date.now()
        throw new SwitchboardError(
          'STORAGE_FULL',
          'the task store has no space left to write; retry later',
          undefined,
          { cause: error },
        )
      }),
    )
  }
  const ping = store.ping.bind(store)
  own.set('ping', async () => {
    const since = Date.now() - fullAt
    if (since < holdMs)
      throw new SwitchboardError(
        'STORAGE_FULL',
        `the task store could not write for lack of space ${Math.round(since / 1000)} s ago`,
      )
    await ping()
  })
  return new Proxy(store, {
    get(target, key) {
      const method = own.get(key)
      if (method) return method
      const value = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      const bound = (value as Method).bind(target)
      own.set(key, bound)
      return bound
    },
  })
}
