import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { JWK } from 'jose'
import { CARD_SIGNING_ALGORITHMS, type CardSigningAlgorithm } from '../../dialects/a2a/wire/signature.ts'
import { type CardSigningKeyOptions, loadCardSigning } from '../../server/card-signing.ts'
import type { FlagSources, ServeFlagGroup } from './group.ts'

/** Repeated flags and comma-separated lists, as one list. */
const listOf = (value: unknown): string[] | undefined => {
  const items = (Array.isArray(value) ? value : typeof value === 'string' ? [value] : [])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean)
  return items.length > 0 ? items : undefined
}

const readPem = (path: string, source: string): string => {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(`${source}: cannot read the key file ${path}: ${(error as Error).message}`)
  }
}

/** Key files with their kids, by position. */
const fromFiles = (files: string[], kids: string[] | undefined, source: string): CardSigningKeyOptions[] => {
  if (kids && kids.length > files.length)
    throw new Error(`--card-signing-kid: ${kids.length} kids for ${files.length} keys (${source})`)
  return files.map((file, index) => ({
    privateKey: readPem(file, source),
    ...(kids?.[index] !== undefined && { kid: kids[index] }),
  }))
}

/** The `cardSigning` section of the config file: `{ keys: [{ file | privateKey, kid?, alg? }] }`. */
const fromFile = (section: unknown): CardSigningKeyOptions[] | undefined => {
  if (section === undefined) return undefined
  const keys = (section as { keys?: unknown })?.keys
  if (!Array.isArray(keys) || keys.length === 0)
    throw new Error(
      'config cardSigning: "keys" must be a non-empty list of { file | privateKey, kid?, alg? }',
    )
  return keys.map((entry, index) => {
    const { file, privateKey, kid, alg } = (entry ?? {}) as Record<string, unknown>
    const where = `config cardSigning.keys[${index}]`
    if (alg !== undefined && !(CARD_SIGNING_ALGORITHMS as readonly unknown[]).includes(alg))
      throw new Error(`${where}.alg must be one of ${CARD_SIGNING_ALGORITHMS.join(', ')}`)
    if (kid !== undefined && (typeof kid !== 'string' || kid === ''))
      throw new Error(`${where}.kid must be a non-empty string`)
    let key: string | JWK
    if (typeof file === 'string') key = readPem(file, where)
    else if (typeof privateKey === 'string' || (typeof privateKey === 'object' && privateKey !== null))
      key = privateKey as string | JWK
    else throw new Error(`${where} needs "file" (a PEM file) or "privateKey" (PEM text or a JWK)`)
    return {
      privateKey: key,
      ...(kid !== undefined && { kid: kid as string }),
      ...(alg !== undefined && { alg: alg as CardSigningAlgorithm }),
    }
  })
}

/** Signed A2A cards: the keys (the first signs; all are published at /.well-known/jwks.json). */
export const cardSigningFlags: ServeFlagGroup = {
  register(command: Command) {
    command
      .option(
        '--card-signing-key <pem-file...>',
        'sign the A2A cards with this private key; repeat (or comma-separate) to publish more keys for a rotation, the first signs (env SWITCHBOARD_CARD_SIGNING_KEYS)',
      )
      .option(
        '--card-signing-kid <kid...>',
        "the key ids of --card-signing-key, in the same order (default: each key's JWK thumbprint; env SWITCHBOARD_CARD_SIGNING_KIDS)",
      )
  },
  async resolve({ flags, env, file }: FlagSources) {
    const flagKeys = listOf(flags.cardSigningKey)
    const envKeys = listOf(env.SWITCHBOARD_CARD_SIGNING_KEYS)
    let keys: CardSigningKeyOptions[] | undefined
    let source = 'config cardSigning'
    if (flagKeys) {
      source = '--card-signing-key'
      keys = fromFiles(flagKeys, listOf(flags.cardSigningKid), source)
    } else if (envKeys) {
      source = 'SWITCHBOARD_CARD_SIGNING_KEYS'
      keys = fromFiles(envKeys, listOf(env.SWITCHBOARD_CARD_SIGNING_KIDS), source)
    } else keys = fromFile(file.cardSigning)
    if (!keys) return {}
    try {
      // Loaded once here so that a bad key names where it came from.
      await loadCardSigning({ keys }, () => '')
    } catch (error) {
      throw new Error(`${source}: ${(error as Error).message}`)
    }
    return { cardSigning: { keys } }
  },
}
