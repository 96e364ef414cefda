import type { Attributes } from '@opentelemetry/api'
import type { EventBody, StatusEvent } from '../model/events.ts'
import { newId } from '../model/ids.ts'
import { text } from '../model/parts.ts'

/**
 * Why a task's handler replays: `restart`, a single-process store started again after its leases
 * were left behind (a crash, or a shutdown that cut the run short); `takeover`, a replica sharing
 * the store claimed a task whose holder's lease lapsed.
 */
export type ResumeReason = 'restart' | 'takeover'

export interface Resume {
  reason: ResumeReason
  /** The replica that resumes the task (the new lease owner). */
  replica: string
}

const WHY: Record<ResumeReason, string> = {
  restart: 'server restart',
  takeover: "takeover: the previous replica's lease expired",
}

/**
 * The status a resumed run commits first, so subscribers learn why the stream went quiet while the
 * handler replays: WORKING again, with an agent message that names the replica and the reason.
 * The same facts go in the message's metadata, under the `switchboard` key A2A metadata uses, for
 * clients (and the metrics) to read without parsing the text.
 */
export const resumedStatus = (resume: Resume): StatusEvent => ({
  kind: 'status',
  state: 'WORKING',
  message: {
    messageId: newId(),
    role: 'agent',
    parts: [
      text(
        `resumed on replica ${resume.replica}: the previous run stopped without finishing (${WHY[resume.reason]})`,
      ),
    ],
    metadata: { switchboard: { kind: 'resumed', reason: resume.reason, replica: resume.replica } },
  },
})

/** The resume an event announces, if it is a resumed run's opening status. */
export const resumeOf = (event: EventBody): Resume | undefined => {
  if (event.kind !== 'status' || event.state !== 'WORKING') return undefined
  const ours = event.message?.metadata?.switchboard as Partial<Resume> & { kind?: unknown }
  if (ours?.kind !== 'resumed' || ours.reason === undefined || ours.replica === undefined) return undefined
  return { reason: ours.reason, replica: ours.replica }
}

/** The attributes of the `task.resumed` event on the resumed run's `handler.run` span. */
export const resumeSpanAttributes = (resume: Resume): Attributes => ({
  'switchboard.resume.reason': resume.reason,
  'switchboard.replica': resume.replica,
})
