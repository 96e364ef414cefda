import { SwitchboardError } from '../model/errors.ts'
import type { Scope } from '../model/task.ts'
import type { Store } from '../store/contract.ts'

/**
 * The open-task cap, checked before the creation: creations racing past the count may overshoot
 * it by the number in flight (a soft cap; a hard one would serialise every creation of a principal).
 */
export const checkOpenTasks = async (store: Store, scope: Scope, cap: number): Promise<void> => {
  const open = await store.countOpenTasks(scope)
  if (open >= cap)
    throw new SwitchboardError(
      'RATE_LIMITED',
      `this caller already has ${open} open tasks, the most allowed; wait for some to finish or cancel them`,
      { openTasks: open, limit: cap },
    )
}
