import type { TaskEvent } from '../model/events.ts'
import type { CreateTaskRequest } from './contract.ts'

/** The events every task is born with, identical in every backend: its input, then SUBMITTED. */
export const openingEvents = (request: CreateTaskRequest, at: string): TaskEvent[] => {
  const input: TaskEvent = { kind: 'input', input: request.input, seq: 1, at }
  if (request.text !== undefined) input.text = request.text
  if (request.message !== undefined) input.message = request.message
  return [input, { kind: 'status', state: 'SUBMITTED', seq: 2, at }]
}
