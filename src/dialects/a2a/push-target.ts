import type { PushTarget } from '../../model/push.ts'

/**
 * An endpoint registered with a TaskPushNotificationConfig. A2A webhooks carry artifact updates
 * too, so the target is created with `artifacts: true`.
 */
export interface A2aPushTarget extends PushTarget {
  kind: 'a2a'
  token?: string
  authentication?: { scheme: string; credentials?: string }
}

export const isA2aPushTarget = (target: PushTarget): target is A2aPushTarget => target.kind === 'a2a'
