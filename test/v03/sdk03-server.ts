/**
 * An A2A 0.3 agent served by @a2a-js/sdk 0.3.14 (express + A2AExpressApp, JSON-RPC only, a 0.3-only
 * card), for testing our client and CLI against a peer that is not us. Its executor:
 * - text "ask": input-required with a question; the answer completes the task with an artifact
 *   `answer` holding the answer's text;
 * - text "hold": working until cancelled;
 * - anything else: an artifact `echo` with the text (or the data part, as JSON), then completed.
 */
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { AgentCard, Message, TaskStatusUpdateEvent } from 'a2a-sdk-03'
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from 'a2a-sdk-03/server'
import { A2AExpressApp } from 'a2a-sdk-03/server/express'
import express from 'express'

const textOf = (message: Message): string =>
  message.parts
    .map((part) => (part.kind === 'text' ? part.text : part.kind === 'data' ? JSON.stringify(part.data) : ''))
    .join('\n')

const status = (
  ctx: { taskId: string; contextId: string },
  state: TaskStatusUpdateEvent['status']['state'],
  final: boolean,
  text?: string,
): TaskStatusUpdateEvent => ({
  kind: 'status-update',
  taskId: ctx.taskId,
  contextId: ctx.contextId,
  final,
  status: {
    state,
    timestamp: new Date().toISOString(),
    ...(text !== undefined && {
      message: {
        kind: 'message',
        role: 'agent',
        messageId: randomUUID(),
        parts: [{ kind: 'text', text }],
        taskId: ctx.taskId,
        contextId: ctx.contextId,
      },
    }),
  },
})

class TinyExecutor implements AgentExecutor {
  readonly #held = new Map<string, () => void>()

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage)
    if (!ctx.task) {
      bus.publish({
        kind: 'task',
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() },
        history: [ctx.userMessage],
      })
    }
    if (ctx.task?.status.state === 'input-required') {
      bus.publish(status(ctx, 'working', false))
      this.#artifact(ctx, bus, 'answer', text)
      bus.publish(status(ctx, 'completed', true))
    } else if (text === 'ask') {
      bus.publish(status(ctx, 'input-required', true, 'Which colour?'))
    } else if (text === 'hold') {
      bus.publish(status(ctx, 'working', false, 'holding'))
      await new Promise<void>((resolve) => this.#held.set(ctx.taskId, resolve))
      return
    } else {
      bus.publish(status(ctx, 'working', false))
      this.#artifact(ctx, bus, 'echo', text)
      bus.publish(status(ctx, 'completed', true))
    }
    bus.finished()
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const release = this.#held.get(taskId)
    this.#held.delete(taskId)
    bus.publish(status({ taskId, contextId: '' }, 'canceled', true))
    bus.finished()
    release?.()
  }

  #artifact(ctx: RequestContext, bus: ExecutionEventBus, name: string, text: string): void {
    bus.publish({
      kind: 'artifact-update',
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      lastChunk: true,
      artifact: { artifactId: randomUUID(), name, parts: [{ kind: 'text', text }] },
    })
  }
}

export interface Sdk03Server {
  /** Where the card is: `${url}/.well-known/agent-card.json`; JSON-RPC is POSTed to `${url}/`. */
  url: string
  card: AgentCard
  close(): Promise<void>
}

export const startSdk03Server = async (): Promise<Sdk03Server> => {
  const card: AgentCard = {
    name: 'Tiny 0.3',
    description: 'An A2A 0.3 agent served by @a2a-js/sdk 0.3.14.',
    url: 'http://127.0.0.1/',
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Says it back.', tags: ['echo'] }],
  }
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TinyExecutor())
  const app = new A2AExpressApp(handler).setupRoutes(express(), '')
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // The card is read on every request: its URL is known once the port is.
  card.url = `${url}/`
  return {
    url,
    card,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
