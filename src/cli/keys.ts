import type { Command } from 'commander'
import type { ApiKey, Store } from '../store/contract.ts'
import { readConfigFile } from './config.ts'
import { EXIT, UsageError } from './exit-codes.ts'
import { Output, table } from './output.ts'

interface StoreFlags {
  data?: string
  store?: string
  config?: string
  json?: boolean
}

interface CreateFlags extends StoreFlags {
  principal: string
  tenant: string
  scope: string[]
  label?: string
}

/** A name a key grants (principal, tenant, scope): some text, no spaces or control characters. */
const NAME = /^[^\s\p{Cc}]+$/u

const nameArg = (value: string, what: string): string => {
  if (!NAME.test(value)) throw new UsageError(`${what} must be non-empty text without spaces, got "${value}"`)
  return value
}

/**
 * The server's own store, as `serve` finds it (flag, then environment, then config file), migrated;
 * closed when `work` is done. Loaded on demand: the database drivers cost start-up time.
 */
const withStore = async <T>(flags: StoreFlags, work: (store: Store) => Promise<T>): Promise<T> => {
  const env = process.env
  const file = readConfigFile(flags.config ?? env.SWITCHBOARD_CONFIG)
  const url = flags.store ?? env.SWITCHBOARD_STORE ?? file.store
  const dataDir = flags.data ?? env.SWITCHBOARD_DATA ?? file.dataDir
  const { initStore } = await import('../server/open-store.ts')
  const store = await initStore({ ...(url && { store: url }), ...(dataDir && { dataDir }) })
  try {
    return await work(store)
  } finally {
    await store.close()
  }
}

const withStoreOptions = (command: Command): Command =>
  command
    .option('--data <dir>', "the server's SQLite data directory (env SWITCHBOARD_DATA, default ./data)")
    .option('--store <url>', "the server's postgres://… store (env SWITCHBOARD_STORE)")
    .option(
      '--config <file>',
      "the server's JSON config file, for its dataDir or store (env SWITCHBOARD_CONFIG)",
    )
    .option('--json', 'machine-readable output')

const collect = (value: string, previous: string[]): string[] => [...previous, nameArg(value, '--scope')]

/** `keys create|list|revoke`: the API keys a server accepts (`serve --api-keys`), in its store. */
export const keysCommand = (
  program: Command,
  run: (action: () => Promise<number>) => Promise<void>,
): void => {
  const keys = program
    .command('keys')
    .description("manage the API keys a server accepts (serve --api-keys); works on the server's store")

  withStoreOptions(keys.command('create').description('make a key; it is printed once and never again'))
    .requiredOption('--principal <name>', 'who the key authenticates as')
    .option('--tenant <name>', 'the tenant of its tasks', 'default')
    .option('--scope <scope>', 'a scope it grants, e.g. tasks:read:tenant (repeatable)', collect, [])
    .option('--label <text>', 'a note for listings (what or who the key is for)')
    .action((flags: CreateFlags) =>
      run(async () => {
        const grant = {
          principal: nameArg(flags.principal, '--principal'),
          tenant: nameArg(flags.tenant, '--tenant'),
          scopes: flags.scope,
          ...(flags.label !== undefined && { label: flags.label }),
        }
        const { createApiKey } = await import('../identity/api-keys.ts')
        const { key, record } = await withStore(flags, (store) => createApiKey(store, grant))
        const { id, principal, tenant, scopes } = record
        // The key alone on stdout (KEY=$(switchboard keys create …)); what it is, on stderr.
        new Output(flags.json === true).result({ id, key, principal, tenant, scopes }, key)
        if (flags.json !== true) {
          process.stderr.write(
            `API key ${id} for ${principal} (tenant ${tenant}, scopes: ${scopes.join(' ') || 'none'}).\n` +
              'It is shown only this once: store it now.\n',
          )
        }
        return EXIT.OK
      }),
    )

  withStoreOptions(
    keys.command('list').description('list keys, revoked ones too, never their secrets'),
  ).action((flags: StoreFlags) =>
    run(async () => {
      const list = await withStore(flags, (store) => store.listApiKeys())
      new Output(flags.json === true).result(list, list.length === 0 ? 'no API keys' : describeKeys(list))
      return EXIT.OK
    }),
  )

  withStoreOptions(keys.command('revoke').description('refuse a key from the next request on, for good'))
    .argument('<id>', 'the key id (from keys list)')
    .addHelpText('after', '\nA key id that does not exist exits with status 4.')
    .action((id: string, flags: StoreFlags) =>
      run(async () => {
        const existed = await withStore(flags, (store) => store.revokeApiKey(id))
        if (!existed) throw new Error(`no API key ${id}`)
        new Output(flags.json === true).result({ id, revoked: true }, `revoked API key ${id}`)
        return EXIT.OK
      }),
    )
}

const describeKeys = (list: readonly ApiKey[]): string =>
  table([
    ['ID', 'PRINCIPAL', 'TENANT', 'SCOPES', 'CREATED', 'REVOKED', 'LABEL'],
    ...list.map((k) => [
      k.id,
      k.principal,
      k.tenant,
      k.scopes.join(',') || '-',
      k.createdAt,
      k.revokedAt ?? '-',
      k.label ?? '',
    ]),
  ])
