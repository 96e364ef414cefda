import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Store } from '../store/contract.ts'
import { SealedStore } from '../store/sealed-store.ts'
import { keyringOf } from '../store/sealing.ts'

export interface SecretsOptions {
  /**
   * AES-256 keys (32 bytes, base64) that encrypt push credentials at rest. The first seals, every
   * one opens: to rotate, put the new key first and keep the old ones (docs/security/secrets.md).
   */
  keys?: string[]
}

/** Where the embedded store keeps its generated key, beside the database it protects. */
export const KEY_FILE = 'secrets.key'

/** The keys of a key file: one base64 key a line; blank lines and # comments are skipped. */
const readKeyFile = (path: string, logger: Logger): string[] => {
  if ((statSync(path).mode & 0o077) !== 0)
    logger.warn({ path }, 'secrets: the key file is readable by other users; chmod 600 it')
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/**
 * Wraps the store so push credentials are encrypted at rest, with:
 * - the configured keys, when there are any (required to share a store between replicas);
 * - for the embedded SQLite store, also the keys of `<dataDir>/secrets.key`, generated (mode 0600)
 *   on first start when no key is configured: secure by default with zero setup;
 * - nothing else for PostgreSQL or a custom store: one generated key per replica would make each
 *   replica's rows unreadable to the others, so credentials are stored in clear, with a warning.
 */
export const sealedStoreOf = (
  store: Store,
  { options, dataDir, logger }: { options: SecretsOptions | undefined; dataDir?: string; logger: Logger },
): Store => {
  const keys = [...(options?.keys ?? [])]
  if (dataDir !== undefined) {
    const path = join(dataDir, KEY_FILE)
    if (existsSync(path)) keys.push(...readKeyFile(path, logger))
    else if (keys.length === 0) {
      const key = randomBytes(32).toString('base64')
      writeFileSync(
        path,
        `# Switchboard push credential key (AES-256-GCM); back it up with the database\n${key}\n`,
        {
          mode: 0o600,
          flag: 'wx',
        },
      )
      keys.push(key)
      logger.info({ path }, 'secrets: generated the key that encrypts push credentials')
    }
  }
  if (keys.length === 0) {
    logger.warn(
      'secrets: no key configured (--secrets-key or SWITCHBOARD_SECRETS_KEYS): push credentials are stored unencrypted',
    )
    return store
  }
  return new SealedStore(store, keyringOf(keys))
}
