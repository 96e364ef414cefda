/**
 * A real @a2a-js/sdk 0.3.14 server (express) with its HTTP+JSON binding, started inside a test:
 * the 0.3 peer our client must work with. Its executor is scripted by the user's message:
 *   text "ask"     INPUT_REQUIRED ("Which colour?"); the answer completes it with "colour: <text>"
 *   text "hold"    WORKING until cancelled
 *   data { … }     COMPLETED, an artifact "data" holding the data back
 *   any other text COMPLETED, an artifact "answer" with "echo: <text>"
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AgentCard, Message, TaskState } from 'a2a-sdk-03'
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from 'a2a-sdk-03/server'
import { agentCardHandler, restHandler, UserBuilder } from 'a2a-sdk-03/server/express'
import express from 'express'

const now = () => new Date().toISOString()

class ScriptedExecutor implements AgentExecutor {
  /** The running "hold" tasks, each released by its cancel. */
  readonly #held = new Map<string, () => void>()

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request
    const status = (state: TaskState, text?: string, final = false) =>
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        final,
        status: {
          state,
          timestamp: now(),
          ...(text && { message: agentMessage(text, taskId, contextId) }),
        },
      })
    const text = userMessage.parts.find((p) => p.kind === 'text')?.text
    const data = userMessage.parts.find((p) => p.kind === 'data')?.data
    bus.publish(
      request.task ?? {
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: now() },
        history: [userMessage],
      },
    )
    if (request.task) {
      this.#artifact(bus, taskId, contextId, 'answer', { kind: 'text', text: `colour: ${text}` })
      status('completed', undefined, true)
    } else if (text === 'ask') {
      status('input-required', 'Which colour?', true)
    } else if (text === 'hold') {
      status('working', 'holding')
      await new Promise<void>((resolve) => this.#held.set(taskId, resolve))
      return
    } else if (data) {
      this.#artifact(bus, taskId, contextId, 'data', { kind: 'data', data })
      status('completed', undefined, true)
    } else {
      this.#artifact(bus, taskId, contextId, 'answer', { kind: 'text', text: `echo: ${text}` })
      status('completed', undefined, true)
    }
    bus.finished()
  }

  #artifact(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    name: string,
    part: { kind: 'text'; text: string } | { kind: 'data'; data: Record<string, unknown> },
  ) {
    bus.publish({
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: randomUUID(), name, parts: [part] },
      lastChunk: true,
    })
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: '',
      final: true,
      status: { state: 'canceled', timestamp: now() },
    })
    bus.finished()
    this.#held.get(taskId)?.()
    this.#held.delete(taskId)
  }
}

const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
})

export interface SdkV03Agent {
  url: string
  /** The REST interface URL (its routes are `/v1/…` under it). */
  restUrl: string
  card: AgentCard
  close(): Promise<void>
}

/** The sdk 0.3.14 server on 127.0.0.1 and a free port: its 0.3 card and its HTTP+JSON binding only. */
export const startSdkV03Agent = async (): Promise<SdkV03Agent> => {
  const app = express()
  const server: Server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const restUrl = `${url}/a2a/rest`
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: 'SDK 0.3 Scripted Agent',
    description: 'An @a2a-js/sdk 0.3.14 agent scripted by its input, for client tests.',
    url: restUrl,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [{ url: restUrl, transport: 'HTTP+JSON' }],
    version: '0.3.14-test',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: 'script', name: 'Script', description: 'Does what its input says.', tags: ['test'] }],
  }
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor())
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  return {
    url,
    restUrl,
    card,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
