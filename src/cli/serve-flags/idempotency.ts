import type { Command } from 'commander'
import { firstSet, nameOf, onOff, type ServeFlagGroup, sectionOf } from './group.ts'
import { parseDuration } from './retention.ts'

/** Request deduplication (docs/a2a.md "Ids", docs/clawpedia.md): the key window and the A2A switch. */
export const idempotencyFlags: ServeFlagGroup = {
  register(command: Command) {
    command
      .option(
        '--idempotency-window <duration>',
        'how long an A2A messageId or a Clawpedia Idempotency-Key dedupes, e.g. 24h, 30m (env SWITCHBOARD_IDEMPOTENCY_WINDOW; default 24h)',
      )
      .option(
        '--message-id-dedupe <on|off>',
        'off: a repeated A2A messageId is a new message, for peers that reuse ids (env SWITCHBOARD_MESSAGE_ID_DEDUPE; default on)',
      )
  },
  resolve({ flags, env, file }) {
    const options: { idempotencyWindowMs?: number; a2a?: { messageIdDedupe: boolean } } = {}
    const { idempotencyWindow: windowFlag, messageIdDedupe: dedupeFlag } = flags
    const window = firstSet(windowFlag, env.SWITCHBOARD_IDEMPOTENCY_WINDOW, file.idempotencyWindow)
    if (window !== undefined) {
      const name = nameOf(
        windowFlag,
        '--idempotency-window',
        env.SWITCHBOARD_IDEMPOTENCY_WINDOW,
        'SWITCHBOARD_IDEMPOTENCY_WINDOW',
        'idempotencyWindow',
      )
      options.idempotencyWindowMs = parseDuration(name, window)
    }
    const a2a = sectionOf(file, 'a2a')
    const dedupe = firstSet(dedupeFlag, env.SWITCHBOARD_MESSAGE_ID_DEDUPE, a2a.messageIdDedupe)
    if (dedupe !== undefined) {
      const name = nameOf(
        dedupeFlag,
        '--message-id-dedupe',
        env.SWITCHBOARD_MESSAGE_ID_DEDUPE,
        'SWITCHBOARD_MESSAGE_ID_DEDUPE',
        'a2a.messageIdDedupe',
      )
      options.a2a = { messageIdDedupe: onOff(name, dedupe) }
    }
    return options
  },
}
