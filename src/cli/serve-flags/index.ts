import type { ServeFlagGroup } from './group.ts'
import { jwtFlags } from './jwt.ts'
import { tlsFlags } from './tls.ts'

/** Every concern's `serve` settings, registered and resolved in this order. */
export const SERVE_FLAG_GROUPS: readonly ServeFlagGroup[] = [jwtFlags, tlsFlags]
