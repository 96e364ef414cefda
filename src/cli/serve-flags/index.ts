import { accessFlags } from './access.ts'
import { cardSigningFlags } from './card-signing.ts'
import type { ServeFlagGroup } from './group.ts'
import { limitsFlags } from './limits.ts'
import { secretsFlags } from './secrets.ts'

/** Every concern's `serve` settings, registered and resolved in this order. */
export const SERVE_FLAG_GROUPS: readonly ServeFlagGroup[] = [
  secretsFlags,
  limitsFlags,
  cardSigningFlags,
  accessFlags,
]
