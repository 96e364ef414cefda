import { SwitchboardError } from '../../model/errors.ts'
import { notFound } from './operation-errors.ts'
import { present } from './wire/requests.ts'

/**
 * The request's `tenant` (body, query or the REST path prefix) selects the tenant; a caller may
 * use only its own (`own`), and an omitted one means it. Another tenant's task answers like a
 * missing task (`taskId` given: existence never leaks); any other operation is refused as forbidden.
 */
export const assertTenant = (own: string, requested: string | undefined, taskId?: string): void => {
  const tenant = present(requested)
  if (tenant === undefined || tenant === own) return
  if (taskId !== undefined) throw notFound(taskId)
  throw new SwitchboardError(
    'FORBIDDEN',
    `this caller may not use tenant ${JSON.stringify(tenant.slice(0, 80))}`,
  )
}
