import { newId } from '../model/ids.ts'
import type { TaskHeader } from '../model/task.ts'
import { nowIso } from '../model/time.ts'
import { recordedCaller } from './caller.ts'
import type { SubmitRequest } from './engine.ts'
import { activeTraceContext } from './trace-context.ts'

/** The header of a task a submit creates: who, which agent, which context, and the creating trace. */
export const newTaskHeader = (request: SubmitRequest, agent: string): TaskHeader => {
  const { caller } = request
  const recorded = recordedCaller(caller)
  const traceContext = activeTraceContext()
  return {
    id: newId(),
    tenant: caller.tenant,
    owner: caller.principal,
    agent,
    contextId: request.contextId ?? newId(),
    createdAt: nowIso(),
    ...(request.metadata && { metadata: request.metadata }),
    ...(recorded && { caller: recorded }),
    ...(request.extensions?.length && { extensions: [...request.extensions] }),
    ...(traceContext && { traceContext }),
  }
}
