/**
 * A real @a2a-js/sdk 0.3.14 server (express) started inside a test: the A2A 0.3 peer that is not
 * us, for our client and CLI. It serves both 0.3 bindings, JSON-RPC at `${url}/` and HTTP+JSON at
 * `${url}/a2a/rest` (`/v1/…` under it); its 0.3-only card names one of them (`binding`) as its
 * main `url`. Its executor is scripted by the user's message:
 *   text "ask"     INPUT_REQUIRED ("Which colour?"); the answer completes it with an artifact
 *                  "answer" holding "colour: <text>"
 *   text "hold"    WORKING until cancelled
 *   data { … }     COMPLETED, an artifact "data" holding the data back
 *   any other text COMPLETED, an artifact "echo" holding "echo: <text>"
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AgentCard, Message, Part, TaskState } from 'a2a-sdk-03'
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from 'a2a-sdk-03/server'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-03/server/express'
import express from 'express'

const now = () => new Date().toISOString()

const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
})

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
    const artifact = (name: string, part: Part) =>
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name, parts: [part] },
        lastChunk: true,
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
      status('working')
      artifact('answer', { kind: 'text', text: `colour: ${text}` })
    } else if (text === 'ask') {
      status('input-required', 'Which colour?', true)
      bus.finished()
      return
    } else if (text === 'hold') {
      status('working', 'holding')
      await new Promise<void>((resolve) => this.#held.set(taskId, resolve))
      return
    } else if (data) {
      status('working')
      artifact('data', { kind: 'data', data })
    } else {
      status('working')
      artifact('echo', { kind: 'text', text: `echo: ${text}` })
    }
    status('completed', undefined, true)
    bus.finished()
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

export interface Sdk03Server {
  /** Where the card is: `${url}/.well-known/agent-card.json`; JSON-RPC is POSTed to `${url}/`. */
  url: string
  /** The HTTP+JSON interface URL (its routes are `/v1/…` under it). */
  restUrl: string
  card: AgentCard
  close(): Promise<void>
}

/** The sdk 0.3.14 server on 127.0.0.1 and a free port; `binding` is the one its card names first. */
export const startSdk03Server = async (
  options: { binding: 'JSONRPC' | 'HTTP+JSON' } = { binding: 'JSONRPC' },
): Promise<Sdk03Server> => {
  const app = express()
  const server: Server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const restUrl = `${url}/a2a/rest`
  const main = options.binding === 'JSONRPC' ? `${url}/` : restUrl
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: 'Tiny 0.3',
    description: 'An @a2a-js/sdk 0.3.14 agent scripted by its input, for client tests.',
    url: main,
    preferredTransport: options.binding,
    // 0.3 asks the additional interfaces to repeat the main one; a JSON-RPC card here has only it.
    ...(options.binding === 'HTTP+JSON' && {
      additionalInterfaces: [{ url: restUrl, transport: 'HTTP+JSON' }],
    }),
    version: '0.3.14-test',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: 'script', name: 'Script', description: 'Does what its input says.', tags: ['test'] }],
  }
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor())
  const userBuilder = UserBuilder.noAuthentication
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder }))
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder }))
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
