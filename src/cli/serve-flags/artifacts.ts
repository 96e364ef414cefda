import type { Command } from 'commander'
import { LIMITS } from '../../engine/limits.ts'
import { firstSet, type ServeFlagGroup, sectionOf } from './group.ts'

/** How artifacts are sent (docs/limits.md): the config file's `artifacts` section. */
export const artifactsFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--inline-file-bytes <n>',
      `file artifacts up to this size go inline (A2A: a raw part, base64) instead of as a link to the content endpoint; 0: never; at most ${LIMITS.inlineArtifactBytes} (env SWITCHBOARD_INLINE_FILE_BYTES; default ${LIMITS.inlineFileBytes})`,
    )
  },
  resolve({ flags, env, file }) {
    const section = sectionOf(file, 'artifacts')
    const variable = 'SWITCHBOARD_INLINE_FILE_BYTES'
    const value = firstSet(flags.inlineFileBytes, env[variable], section.inlineFileBytes)
    if (value === undefined) return {}
    const n = typeof value === 'string' ? Number(value.trim()) : value
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > LIMITS.inlineArtifactBytes) {
      const name =
        flags.inlineFileBytes !== undefined
          ? '--inline-file-bytes'
          : env[variable]
            ? variable
            : 'artifacts.inlineFileBytes in the config file'
      throw new Error(
        `${name} must be a whole number from 0 to ${LIMITS.inlineArtifactBytes}, got "${String(value)}"`,
      )
    }
    return { artifacts: { inlineFileBytes: n } }
  },
}
