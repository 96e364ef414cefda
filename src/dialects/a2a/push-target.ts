import type { PushTarget } from '../../model/push.ts'

/**
 * An endpoint registered with a TaskPushNotificationConfig. A2A webhooks carry artifact updates
 * too, so the target is created with `artifacts: true`. `wireVersion` is the A2A version its
 * webhook bodies are rendered in: absent for 1.0; '0.3' for a config registered over 0.3 (either
 * binding), whose receiver expects the 0.3 body.
 */
export interface A2aPushTarget extends PushTarget {
  kind: 'a2a'
  token?: string
  authentication?: { scheme: string; credentials?: string }
  wireVersion?: '0.3'
}

export const isA2aPushTarget = (target: PushTarget): target is A2aPushTarget => target.kind === 'a2a'

/** Marks a target registered over A2A 0.3 (JSON-RPC or HTTP+JSON): its webhooks get 0.3 bodies. */
export const asV03PushTarget = (target: A2aPushTarget): A2aPushTarget => ({ ...target, wireVersion: '0.3' })

export const isV03PushTarget = (target: PushTarget): boolean =>
  isA2aPushTarget(target) && target.wireVersion === '0.3'
