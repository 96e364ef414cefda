import type { Delivery } from '../../model/push.ts'
import { toA2aTask } from './mapping.ts'
import type { A2aPushTarget } from './push-target.ts'
import { V03_NOTIFICATION_TOKEN_HEADER } from './wire/v03/shapes.ts'
import { toV03Task } from './wire/v03/to-v03.ts'

/**
 * The A2A 0.3 webhook request for one outbox row (a config registered over 0.3): what a 0.3
 * receiver expects (0.3 spec §9.5), the Task as it stood at the event, in 0.3 JSON (`kind: "task"`),
 * as `application/json`, with the config's token in `X-A2A-Notification-Token` and, when it has
 * credentials, `Authorization: <first scheme> <credentials>`. Every event the 1.0 body is sent for
 * (status changes, artifacts, a streamed artifact's opening and last chunk) sends the task, so the
 * receiver sees each artifact as it lands.
 */
export const renderV03Push = (
  delivery: Delivery & { target: A2aPushTarget },
  contentUrlBase: string,
): { body: string; headers: Record<string, string> } => {
  const { target, task } = delivery
  const body = toV03Task(toA2aTask(task, { baseUrl: contentUrlBase.replace(/\/+$/, '') }))
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (target.authentication?.credentials)
    headers.authorization = `${target.authentication.scheme} ${target.authentication.credentials}`
  if (target.token) headers[V03_NOTIFICATION_TOKEN_HEADER.toLowerCase()] = target.token
  return { body: JSON.stringify(body), headers }
}
