import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Tracer } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { EventBus } from '../events/contract.ts'
import { LocalBus } from '../events/local-bus.ts'
import { PostgresBus } from '../events/postgres-bus.ts'
import { tracerOf } from '../observability/tracing.ts'
import type { Store } from '../store/contract.ts'
import { PostgresStore } from '../store/postgres/postgres-store.ts'
import { SqliteStore } from '../store/sqlite/sqlite-store.ts'
import { DEFAULTS } from './defaults.ts'
import type { SwitchboardOptions } from './server.ts'
import { causeOf, databaseStartupError, StartupError } from './startup-error.ts'

/** Where the server keeps its data: what `serve` and the commands that share its store (`keys`) are given. */
export type StoreOptions = Pick<SwitchboardOptions, 'store' | 'dataDir' | 'postgres' | 'tracing'> & {
  /** Told what start-up takes for granted (an empty database file taken as a new one). */
  log?: Pick<Logger, 'warn' | 'error'>
}

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

/**
 * A store built here traces its commits to the server's provider when tracing is on; a store
 * given ready-made traces if it was built with a tracer of its own.
 */
const storeOf = (options: StoreOptions): Store => {
  const tracer = options.tracing && tracerOf(options.tracing.tracerProvider)
  if (typeof options.store !== 'string')
    return options.store ?? openSqlite(options.dataDir ?? DEFAULTS.dataDir, options.log, tracer)
  if (!POSTGRES_URL.test(options.store))
    throw new TypeError('unsupported store URL: use postgres://user@host:port/database')
  return new PostgresStore({
    connectionString: options.store,
    ...(options.postgres?.poolSize !== undefined && { poolSize: options.postgres.poolSize }),
    ...(tracer && { tracer }),
  })
}

/**
 * The embedded store, checked before anything is served from it: the data directory must be a
 * writable directory (SQLite keeps its -wal and -shm files beside the database), and the database
 * must open and pass its integrity check. Each failure is a StartupError naming the path.
 */
const openSqlite = (dataDir: string, log: StoreOptions['log'], tracer: Tracer | undefined): SqliteStore => {
  const dir = resolve(dataDir)
  try {
    makeDirectory(dir)
  } catch (error) {
    throw new StartupError(
      'DATA_DIR_UNUSABLE',
      `cannot use the data directory ${dir}: ${causeOf(error)}; choose a writable directory with --data (or SWITCHBOARD_DATA)`,
      { cause: error },
    )
  }
  const filename = join(dir, 'switchboard.db')
  // SQLite takes an empty file for a new database; an operator who truncated it by mistake should hear so.
  if (statSync(filename, { throwIfNoEntry: false })?.size === 0)
    log?.warn({ file: filename }, 'the database file is empty (0 bytes): starting with a new database')
  try {
    return new SqliteStore({
      filename,
      ...(tracer && { tracer }),
      onCheckpointFailure: (error) =>
        log?.error({ err: error, file: filename }, 'WAL checkpoints moved back to the main thread'),
    })
  } catch (error) {
    throw databaseStartupError(filename, error)
  }
}

/**
 * Makes `dir` and its missing parents one at a time, and checks it is a writable directory.
 * Not `mkdirSync(…, { recursive: true })`: where a directory cannot be made (under /proc) it
 * loops forever, and elsewhere it reports a read-only parent as ENOENT.
 */
const makeDirectory = (dir: string): void => {
  const missing: string[] = []
  for (let at = dir; !existsSync(at); at = dirname(at)) missing.unshift(at)
  for (const path of missing) mkdirSync(path)
  if (!statSync(dir).isDirectory())
    throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' })
  accessSync(dir, constants.W_OK)
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
