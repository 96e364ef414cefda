import { a2aVersionFlags } from './a2a-versions.ts'
import { accessFlags } from './access.ts'
import { apiKeyFlags } from './api-keys.ts'
import { artifactsFlags } from './artifacts.ts'
import { cardSigningFlags } from './card-signing.ts'
import { connectionsFlags } from './connections.ts'
import { consoleFlags } from './console.ts'
import type { ServeFlagGroup } from './group.ts'
import { grpcFlags } from './grpc.ts'
import { idempotencyFlags } from './idempotency.ts'
import { jwtFlags } from './jwt.ts'
import { limitsFlags } from './limits.ts'
import { otelFlags } from './otel.ts'
import { retentionFlags } from './retention.ts'
import { secretsFlags } from './secrets.ts'
import { tlsFlags } from './tls.ts'

/** Every concern's `serve` settings, registered and resolved in this order. */
export const SERVE_FLAG_GROUPS: readonly ServeFlagGroup[] = [
  apiKeyFlags,
  jwtFlags,
  tlsFlags,
  secretsFlags,
  limitsFlags,
  connectionsFlags,
  cardSigningFlags,
  accessFlags,
  retentionFlags,
  a2aVersionFlags,
  idempotencyFlags,
  artifactsFlags,
  grpcFlags,
  otelFlags,
  consoleFlags,
]
