export type { CompiledPolicy, OutboundPolicy } from './address-policy.ts'
export { compilePolicy, refusalReason } from './address-policy.ts'
export type { AttemptResult } from './attempt.ts'
export { classifyStatus, postNotification } from './attempt.ts'
export { nextDelay, parseRetryAfter } from './backoff.ts'
export { SIGNATURE_HEADER, signPayload, verifySignature } from './signing.ts'
export type { GuardedDispatcherOptions, LookupAll, ResolvedAddress } from './ssrf.ts'
export { assertUrlAllowed, createGuardedDispatcher, findRefusal, resolveAllowed } from './ssrf.ts'
export type {
  PushLogger,
  PushStats,
  PushWorkerOptions,
  RenderedNotification,
  RenderNotification,
} from './worker.ts'
export { PushWorker } from './worker.ts'
