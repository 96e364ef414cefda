import type { Command } from 'commander'
import { secretKeyOf } from '../../store/sealing.ts'
import type { ServeFlagGroup } from './group.ts'

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value]

/** Each key decodes to 32 bytes, or the setting that gave it is named in the error. */
const checked = (keys: string[], source: string): string[] => {
  for (const key of keys) {
    try {
      secretKeyOf(key)
    } catch (error) {
      throw new Error(`${source}: ${(error as Error).message}`)
    }
  }
  return keys
}

/** The keys that encrypt push credentials at rest (docs/security/secrets.md). */
export const secretsFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--secrets-key <base64>',
      'AES-256 key (openssl rand -base64 32) encrypting push credentials at rest; repeat to rotate, the first seals (env SWITCHBOARD_SECRETS_KEYS, comma-separated; default for SQLite: a key generated in <data>/secrets.key)',
      collect,
    )
  },
  resolve({ flags, env, file }) {
    const section = file.secrets as { keys?: unknown } | undefined
    if (
      section?.keys !== undefined &&
      (!Array.isArray(section.keys) || section.keys.some((k) => typeof k !== 'string'))
    )
      throw new Error('secrets.keys in the config file must be an array of base64 keys')
    const sources: [string, string[] | undefined][] = [
      ['--secrets-key', flags.secretsKey as string[] | undefined],
      [
        'SWITCHBOARD_SECRETS_KEYS',
        env.SWITCHBOARD_SECRETS_KEYS?.split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      ],
      ['secrets.keys in the config file', section?.keys as string[] | undefined],
    ]
    const chosen = sources.find(([, keys]) => keys !== undefined && keys.length > 0)
    if (!chosen) return {}
    const [source, keys] = chosen as [string, string[]]
    return { secrets: { keys: checked(keys, source) } }
  },
}
