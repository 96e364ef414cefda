import { artifactIndex } from '../../model/fold.ts'
import type { Delivery } from '../../model/push.ts'
import { artifactUpdate, toA2aArtifact, toA2aStatus } from './mapping.ts'
import { renderV03Push } from './push-body-v03.ts'
import { isA2aPushTarget } from './push-target.ts'
import { A2A_CONTENT_TYPE, type StreamResponse } from './wire/shapes.ts'

/**
 * The A2A 1.0 webhook request for one outbox row: a StreamResponse (statusUpdate for a status
 * change, with the task as it was at that event; artifactUpdate for an artifact, and for a
 * streamed one its opening and then, at its last chunk, the whole of it), sent as
 * `application/a2a+json` with `Authorization: <scheme> <credentials>` from the config's
 * authentication. 1.0 defines no transport for the config's `token`; like @a2a-js/sdk we send it
 * as `X-A2A-Notification-Token`. A completed task's output is not in the body: receivers read it
 * with GetTask (the "output" artifact).
 *
 * `contentUrlBase` is the absolute base URL of the task's agent mount (`https://host/agents/{slug}`,
 * no trailing slash): file artifacts link to `{contentUrlBase}/artifacts/{id}/content`.
 */
export const renderA2aPush = (
  delivery: Delivery,
  contentUrlBase: string,
): { body: string; headers: Record<string, string> } => {
  const { target, event, task } = delivery
  if (!isA2aPushTarget(target))
    throw new TypeError(`delivery ${delivery.id} is for a ${target.kind} target, not A2A`)
  if (target.wireVersion === '0.3') return renderV03Push({ ...delivery, target }, contentUrlBase)
  let payload: StreamResponse
  switch (event.kind) {
    case 'status':
      payload = { statusUpdate: { taskId: task.id, contextId: task.contextId, status: toA2aStatus(task) } }
      break
    case 'artifact': {
      const artifact = toA2aArtifact(event.artifact, contentUrlBase.replace(/\/+$/, ''))
      const opens = event.artifact.stream !== undefined
      payload = { artifactUpdate: artifactUpdate(task, artifact, { append: false, lastChunk: !opens }) }
      break
    }
    case 'chunk': {
      // Only a stream's last chunk is delivered (model/push.ts): the artifact whole, replacing the
      // empty one its opening announced.
      const whole = task.artifacts[artifactIndex(task, event.artifactId)]
      if (!whole) throw new TypeError(`delivery ${delivery.id}: no artifact ${event.artifactId} in its task`)
      const artifact = toA2aArtifact(whole, contentUrlBase.replace(/\/+$/, ''))
      payload = { artifactUpdate: artifactUpdate(task, artifact) }
      break
    }
    default:
      throw new TypeError(
        `A2A webhooks carry status and artifact events, not ${event.kind} (delivery ${delivery.id})`,
      )
  }
  const headers: Record<string, string> = { 'content-type': A2A_CONTENT_TYPE }
  if (target.authentication) {
    const { scheme, credentials } = target.authentication
    headers.authorization = credentials ? `${scheme} ${credentials}` : scheme
  }
  if (target.token) headers['x-a2a-notification-token'] = target.token
  return { body: JSON.stringify(payload), headers }
}
