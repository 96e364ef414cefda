import { SwitchboardError } from '../model/errors.ts'

/**
 * What every backend throws for a live key reused by another request. It names no task: the
 * dialects say which of their fields (messageId, Idempotency-Key) was reused.
 */
export const idempotencyConflict = (): SwitchboardError =>
  new SwitchboardError(
    'IDEMPOTENCY_CONFLICT',
    'the idempotency key was already used for a different request; a new request needs a new key',
  )
