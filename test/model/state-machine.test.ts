import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { TaskEvent } from '../../src/model/events.ts'
import { applyEvent, emptyTask, fold } from '../../src/model/fold.ts'
import {
  canTransition,
  isTerminal,
  TASK_STATES,
  type TaskState,
  TERMINAL_STATES,
} from '../../src/model/states.ts'
import type { Task } from '../../src/model/task.ts'

const header = {
  id: 't',
  tenant: 'x',
  owner: 'y',
  agent: 'a',
  contextId: 'c',
  createdAt: '2026-01-01T00:00:00.000Z',
}
const at = '2026-01-01T00:00:01.000Z'

/** The shortest event path from a new task to `state`. */
const PATH: Record<TaskState, TaskState[]> = {
  SUBMITTED: [],
  WORKING: ['WORKING'],
  INPUT_REQUIRED: ['WORKING', 'INPUT_REQUIRED'],
  AUTH_REQUIRED: ['WORKING', 'AUTH_REQUIRED'],
  COMPLETED: ['WORKING', 'COMPLETED'],
  FAILED: ['WORKING', 'FAILED'],
  CANCELLED: ['CANCELLED'],
  REJECTED: ['REJECTED'],
}

const taskIn = (state: TaskState): Task => {
  const task = emptyTask(header)
  const events: TaskEvent[] = [
    { kind: 'input', input: {}, seq: 1, at },
    { kind: 'status', state: 'SUBMITTED', seq: 2, at },
  ]
  for (const next of PATH[state]) events.push({ kind: 'status', state: next, seq: events.length + 1, at })
  for (const event of events) applyEvent(task, event)
  assert.equal(task.state, state)
  return task
}

/** The table the reference draws, extended with A2A's AUTH_REQUIRED and REJECTED. */
const EXPECTED_ALLOWED: Record<TaskState, TaskState[]> = {
  SUBMITTED: ['WORKING', 'FAILED', 'CANCELLED', 'REJECTED'],
  WORKING: ['INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED'],
  INPUT_REQUIRED: ['WORKING', 'FAILED', 'CANCELLED'],
  AUTH_REQUIRED: ['WORKING', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
  REJECTED: [],
}

describe('the task state machine', () => {
  for (const from of TASK_STATES) {
    for (const to of TASK_STATES) {
      const allowed = EXPECTED_ALLOWED[from].includes(to)
      it(`${from} → ${to} is ${allowed ? 'allowed' : 'refused'}`, () => {
        assert.equal(canTransition(from, to), allowed)
        const task = taskIn(from)
        const event: TaskEvent = { kind: 'status', state: to, seq: task.version + 1, at }
        if (allowed) {
          applyEvent(task, event)
          assert.equal(task.state, to)
          assert.equal(task.version, event.seq)
        } else {
          const before = structuredClone(task)
          assert.throws(
            () => applyEvent(task, event),
            (e: { code?: string }) => e.code === (isTerminal(from) ? 'TASK_TERMINAL' : 'INVALID_TRANSITION'),
          )
          assert.deepEqual(task, before, 'a refused event leaves the task untouched')
        }
      })
    }
  }

  it('terminal states refuse every kind of event, not only status changes', () => {
    for (const state of TERMINAL_STATES) {
      const task = taskIn(state)
      for (const event of [
        { kind: 'log', level: 'INFO', message: 'late' },
        { kind: 'input', input: {} },
        { kind: 'artifact', artifact: { id: 'a', taskId: 't', createdAt: at, type: 'text', text: 'late' } },
      ] as const) {
        assert.throws(
          () => applyEvent(task, { ...event, seq: task.version + 1, at } as TaskEvent),
          (e: { code?: string }) => e.code === 'TASK_TERMINAL',
        )
      }
    }
  })

  it('an answer is accepted only while the task waits for input', () => {
    for (const state of TASK_STATES) {
      const task = taskIn(state)
      const answer: TaskEvent = { kind: 'input', input: { a: 1 }, seq: task.version + 1, at }
      if (state === 'INPUT_REQUIRED' || state === 'AUTH_REQUIRED') {
        applyEvent(task, answer)
        assert.deepEqual(task.answers, [{ input: { a: 1 } }])
      } else {
        assert.throws(() => applyEvent(task, answer))
      }
    }
  })

  it('a WORKING task takes a WORKING status that carries a message (a resumed run says why), and only such', () => {
    const task = taskIn('WORKING')
    const message = {
      messageId: 'm2',
      role: 'agent' as const,
      parts: [{ kind: 'text' as const, text: 'resumed' }],
    }
    applyEvent(task, { kind: 'status', state: 'WORKING', message, seq: task.version + 1, at })
    assert.equal(task.state, 'WORKING')
    assert.deepEqual(task.statusMessage, message)
    assert.deepEqual(
      [task.logCount, task.answers, task.artifacts],
      [0, [], []],
      'nothing replay counts moved',
    )
    assert.throws(
      () => applyEvent(task, { kind: 'status', state: 'WORKING', seq: task.version + 1, at }),
      (e: { code?: string }) => e.code === 'INVALID_TRANSITION',
    )
    applyEvent(task, { kind: 'status', state: 'COMPLETED', output: {}, seq: task.version + 1, at })
    assert.equal(task.statusMessage, undefined, 'the next status clears it')
  })

  it('SUBMITTED is only the opening status', () => {
    const task = taskIn('WORKING')
    assert.throws(() => applyEvent(task, { kind: 'status', state: 'SUBMITTED', seq: task.version + 1, at }))
  })

  it('refuses an event whose seq does not follow the version', () => {
    const task = taskIn('WORKING')
    assert.throws(() =>
      applyEvent(task, { kind: 'log', level: 'INFO', message: 'x', seq: task.version + 2, at }),
    )
  })

  it('fold is the task: input, answers, logs, artifacts, prompt, output, error', () => {
    const events: TaskEvent[] = [
      { kind: 'input', input: { q: 1 }, text: 'hello', seq: 1, at },
      { kind: 'status', state: 'SUBMITTED', seq: 2, at },
      { kind: 'status', state: 'WORKING', seq: 3, at },
      { kind: 'log', level: 'INFO', message: 'one', seq: 4, at },
      {
        kind: 'artifact',
        artifact: { id: 'a1', taskId: 't', createdAt: at, type: 'json', value: [1] },
        seq: 5,
        at,
      },
      { kind: 'status', state: 'INPUT_REQUIRED', prompt: 'why?', messageId: 'm1', seq: 6, at },
      { kind: 'input', input: { because: true }, seq: 7, at },
      { kind: 'status', state: 'WORKING', seq: 8, at: '2026-01-01T00:00:02.000Z' },
      { kind: 'status', state: 'COMPLETED', output: { ok: true }, seq: 9, at: '2026-01-01T00:00:03.000Z' },
    ]
    const task = fold(header, events)
    assert.equal(task.state, 'COMPLETED')
    assert.equal(task.version, 9)
    assert.deepEqual(task.input, { q: 1 })
    assert.equal(task.text, 'hello')
    assert.deepEqual(task.answers, [{ input: { because: true } }])
    assert.equal(task.logCount, 1)
    assert.deepEqual(
      task.artifacts.map((a) => a.id),
      ['a1'],
    )
    assert.deepEqual(task.output, { ok: true })
    assert.equal(task.prompt, undefined, 'the prompt belongs to INPUT_REQUIRED only')
    assert.equal(task.statusAt, '2026-01-01T00:00:03.000Z')
    assert.deepEqual(
      task.history.map((m) => [m.role, m.messageId]),
      [['agent', 'm1']],
    )
  })
})
