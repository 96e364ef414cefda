import { apiKeyFlags } from './api-keys.ts'
import type { ServeFlagGroup } from './group.ts'

/** Every concern's `serve` settings, registered and resolved in this order. */
export const SERVE_FLAG_GROUPS: readonly ServeFlagGroup[] = [apiKeyFlags]
