import { A2A_TASK_STATES, type A2aTaskState } from '../states.ts'
import type { V03TaskState } from './shapes.ts'

/**
 * 1.0 state name ⇄ 0.3 state name: `TASK_STATE_INPUT_REQUIRED` is `input-required`, and 1.0's
 * UNSPECIFIED is 0.3's `unknown`.
 */
export const toV03State = (state: A2aTaskState): V03TaskState =>
  state === 'TASK_STATE_UNSPECIFIED'
    ? 'unknown'
    : (state.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-') as V03TaskState)

const FROM_V03 = new Map<string, A2aTaskState>(A2A_TASK_STATES.map((state) => [toV03State(state), state]))

/** Unknown words (a newer peer's state) read as UNSPECIFIED, as an unknown 1.0 enum value would. */
export const fromV03State = (state: string): A2aTaskState => FROM_V03.get(state) ?? 'TASK_STATE_UNSPECIFIED'
