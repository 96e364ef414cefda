import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { EventBus } from '../events/contract.ts'
import { LocalBus } from '../events/local-bus.ts'
import { PostgresBus } from '../events/postgres-bus.ts'
import type { Store } from '../store/contract.ts'
import { PostgresStore } from '../store/postgres/postgres-store.ts'
import { SqliteStore } from '../store/sqlite/sqlite-store.ts'
import { DEFAULTS } from './defaults.ts'
import type { SwitchboardOptions } from './server.ts'

/** Where the server keeps its data: what `serve` and the commands that share its store (`keys`) are given. */
export type StoreOptions = Pick<SwitchboardOptions, 'store' | 'dataDir' | 'postgres'>

const POSTGRES_URL = /^postgres(ql)?:\/\//

/**
 * The store the options name, migrated: SQLite in the data directory by default, PostgreSQL for a
 * `postgres://` URL, or the store given.
 */
export const initStore = async (options: StoreOptions): Promise<Store> => {
  const store = storeOf(options)
  await store.init()
  return store
}

const storeOf = (options: StoreOptions): Store => {
  if (typeof options.store !== 'string')
    return options.store ?? openSqlite(options.dataDir ?? DEFAULTS.dataDir)
  if (!POSTGRES_URL.test(options.store))
    throw new TypeError('unsupported store URL: use postgres://user@host:port/database')
  return new PostgresStore({
    connectionString: options.store,
    ...(options.postgres?.poolSize !== undefined && { poolSize: options.postgres.poolSize }),
  })
}

const openSqlite = (dataDir: string): SqliteStore => {
  mkdirSync(dataDir, { recursive: true })
  return new SqliteStore({ filename: join(dataDir, 'switchboard.db') })
}

/** The server's store and its bus: a PostgreSQL URL gets the LISTEN/NOTIFY bus, anything else a local one. */
export const openStore = async (
  options: StoreOptions & Pick<SwitchboardOptions, 'bus'>,
): Promise<{ store: Store; bus: EventBus }> => {
  const store = await initStore(options)
  if (typeof options.store === 'string' && store instanceof PostgresStore) {
    const bus = await PostgresBus.connect({
      connectionString: options.store,
      replicaTag: store.replicaTag,
      readVersions: (taskIds) => store.versionsOf(taskIds),
    })
    return { store, bus }
  }
  return { store, bus: options.bus ?? new LocalBus() }
}
