/**
 * A wrong answer is not a fast answer: every operation's result is checked, and a failed check
 * counts as an error, not as an operation.
 */
import { artifactName, artifactText, TOKENS_ARTIFACT, tokenText } from '../protocol.ts'
import type { StreamItem, WireTask } from './a2a.ts'

export const COMPLETED = 'TASK_STATE_COMPLETED'
export const CANCELED = 'TASK_STATE_CANCELED'
const TERMINAL = new Set([COMPLETED, CANCELED, 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED'])

export const isTerminalState = (state: string | undefined): boolean =>
  state !== undefined && TERMINAL.has(state)

export interface Expectation {
  /** Text artifacts the agent publishes (a0…). */
  artifacts: number
  /** Switchboard also shows a COMPLETED task's output as one artifact named "output". */
  outputArtifact: boolean
}

export class VerificationError extends Error {}

const check = (ok: boolean, what: string): void => {
  if (!ok) throw new VerificationError(what)
}

const textOf = (artifact: { parts?: { text?: string }[] } | undefined): string | undefined =>
  artifact?.parts?.[0]?.text

/** The task is COMPLETED with exactly the expected artifacts, in order. */
export const checkCompletedTask = (task: WireTask, expect: Expectation, id?: string): void => {
  check(typeof task?.id === 'string', 'the answer is not a task')
  if (id !== undefined) check(task.id === id, `asked for task ${id}, got ${task.id}`)
  check(task.status?.state === COMPLETED, `task ${task.id} is ${task.status?.state}, not COMPLETED`)
  const artifacts = task.artifacts ?? []
  const named = artifacts.filter((a) => a.name !== 'output')
  check(named.length === expect.artifacts, `task has ${named.length} artifacts, expected ${expect.artifacts}`)
  named.forEach((artifact, i) => {
    check(artifact.name === artifactName(i) && textOf(artifact) === artifactText(i), `artifact ${i} is wrong`)
  })
  const outputs = artifacts.length - named.length
  check(outputs === (expect.outputArtifact ? 1 : 0), `task has ${outputs} output artifacts`)
}

/** A freshly accepted task (returnImmediately, or a held task): any state but a failure. */
export const checkAccepted = (task: WireTask): void => {
  check(typeof task?.id === 'string', 'the answer is not a task')
  const state = task.status?.state
  check(
    state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING' || state === COMPLETED,
    `accepted task is ${state}`,
  )
}

/**
 * A SendStreamingMessage stream: the Task first, at most one WORKING update, the artifacts in
 * order (then the output artifact on Switchboard), and COMPLETED last; nothing else, all of one task.
 */
export const checkStream = (items: readonly StreamItem[], expect: Expectation): void => {
  const taskId = items[0]?.task?.id
  check(taskId !== undefined, 'the stream does not start with the Task')
  let working = 0
  let artifacts = 0
  let outputs = 0
  for (const [index, item] of items.entries()) {
    if (index === 0) continue
    const last = index === items.length - 1
    if (item.statusUpdate) {
      check(item.statusUpdate.taskId === taskId, 'an update of another task')
      const state = item.statusUpdate.status?.state
      if (last) check(state === COMPLETED, `the stream ends ${state}`)
      else check(state === 'TASK_STATE_WORKING' && ++working <= 1, `unexpected status ${state}`)
    } else if (item.artifactUpdate) {
      check(item.artifactUpdate.taskId === taskId && !last, 'an artifact update out of place')
      const artifact = item.artifactUpdate.artifact
      if (artifact?.name === 'output') outputs++
      else {
        check(outputs === 0, 'an artifact after the output')
        check(
          artifact?.name === artifactName(artifacts) && textOf(artifact) === artifactText(artifacts),
          `artifact ${artifacts} is wrong`,
        )
        artifacts++
      }
    } else {
      throw new VerificationError(`unexpected stream item ${Object.keys(item).join(',')}`)
    }
  }
  check(artifacts === expect.artifacts, `the stream has ${artifacts} artifacts, expected ${expect.artifacts}`)
  check(outputs === (expect.outputArtifact ? 1 : 0), `the stream has ${outputs} output artifacts`)
  check(items.at(-1)?.statusUpdate?.status?.state === COMPLETED, 'the stream does not end COMPLETED')
}

/**
 * A token stream (SendStreamingMessage of one artifact in `chunks` appended pieces): the Task
 * first, at most one WORKING, then the updates of one artifact — the first creates it (no
 * `append`), every later one appends, one `lastChunk` ends it — whose non-empty pieces are
 * exactly `t0 `…, in order, and COMPLETED last. An empty piece is allowed only as the opening or
 * as the last chunk (Switchboard opens a streamed artifact empty, and may end it empty).
 */
export const checkTokenStream = (items: readonly StreamItem[], chunks: number): void => {
  const taskId = items[0]?.task?.id
  check(taskId !== undefined, 'the stream does not start with the Task')
  let working = 0
  let updates = 0
  let pieces = 0
  let artifactId: string | undefined
  let ended = false
  for (const [index, item] of items.entries()) {
    if (index === 0) continue
    const last = index === items.length - 1
    if (item.statusUpdate) {
      check(item.statusUpdate.taskId === taskId, 'an update of another task')
      const state = item.statusUpdate.status?.state
      if (last) check(state === COMPLETED, `the stream ends ${state}`)
      else check(state === 'TASK_STATE_WORKING' && ++working <= 1, `unexpected status ${state}`)
      continue
    }
    const update = item.artifactUpdate
    if (!update) throw new VerificationError(`unexpected stream item ${Object.keys(item).join(',')}`)
    check(update.taskId === taskId && !last, 'an artifact update out of place')
    check(!ended, 'an artifact update after the last chunk')
    const artifact = update.artifact
    check(artifact?.name === TOKENS_ARTIFACT, `an update of artifact ${artifact?.name}`)
    artifactId ??= artifact?.artifactId
    check(
      artifactId !== undefined && artifact?.artifactId === artifactId,
      'updates of more than one artifact',
    )
    check((update.append === true) === updates > 0, `update ${updates} has append ${update.append}`)
    ended = update.lastChunk === true
    const text = textOf(artifact) ?? ''
    if (text === '') check(updates === 0 || ended, `update ${updates} is an empty piece`)
    else {
      check(text === tokenText(pieces), `piece ${pieces} is ${JSON.stringify(text)}`)
      pieces++
    }
    updates++
  }
  check(pieces === chunks, `the stream has ${pieces} pieces, expected ${chunks}`)
  check(ended, 'the artifact never had its last chunk')
  check(items.at(-1)?.statusUpdate?.status?.state === COMPLETED, 'the stream does not end COMPLETED')
}
