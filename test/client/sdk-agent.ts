/**
 * A real @a2a-js/sdk 1.3 server (express), started inside a test: the A2A peer the client must
 * work with besides our own server. Its executor is scripted by the input data part:
 *   { steps, step_ms }  that many artifact updates ("step-1", …), then COMPLETED with an "output"
 *   { ask: true }       INPUT_REQUIRED ("What is your name?"); the answer { name } completes it
 *   { fail: true }      FAILED
 *   { authorize: true } AUTH_REQUIRED ("Authorize calendar access at https://auth.example/consent")
 *   text "ping"         a Message reply instead of a task
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'

const now = () => new Date().toISOString()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class ScriptedExecutor implements AgentExecutor {
  readonly #cancelled = new Set<string>()
  readonly #contexts = new Map<string, string>()

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request
    this.#contexts.set(taskId, contextId)
    const parts = request.userMessage.parts
    const data = (parts.find((p) => p.content?.$case === 'data')?.content?.value ?? {}) as Record<
      string,
      unknown
    >
    const text = parts.find((p) => p.content?.$case === 'text')?.content?.value as string | undefined
    const status = (state: string, message?: string) =>
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId,
          status: {
            state,
            timestamp: now(),
            ...(message && {
              message: {
                messageId: randomUUID(),
                role: 'ROLE_AGENT',
                parts: [{ text: message }],
                taskId,
                contextId,
              },
            }),
          },
        }),
      )
    const artifact = (artifactId: string, name: string, part: object) =>
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          artifact: { artifactId, name, parts: [part] },
          lastChunk: true,
        }),
      )

    if (text === 'ping') {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({
            messageId: randomUUID(),
            role: 'ROLE_AGENT',
            parts: [{ text: 'pong' }],
            contextId,
          }),
        ),
      )
      return
    }
    if (request.task) {
      // A follow-up turn: the SDK wants the task first, even though it exists.
      bus.publish(AgentEvent.task(request.task))
      bus.publish(status('TASK_STATE_WORKING'))
      bus.publish(artifact('greeting', 'greeting', { text: `Hello, ${String(data.name)}!` }))
      bus.publish(artifact(randomUUID(), 'output', { data: { greeting: `Hello, ${String(data.name)}!` } }))
      bus.publish(status('TASK_STATE_COMPLETED'))
      return
    }
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() } }),
      ),
    )
    bus.publish(status('TASK_STATE_WORKING', 'starting'))
    const steps = typeof data.steps === 'number' ? data.steps : 0
    for (let step = 1; step <= steps; step++) {
      await sleep(typeof data.step_ms === 'number' ? data.step_ms : 10)
      if (this.#cancelled.has(taskId)) return
      bus.publish(artifact(`step-${step}`, `step ${step}`, { text: `step ${step} of ${steps}` }))
    }
    if (data.ask) {
      bus.publish(status('TASK_STATE_INPUT_REQUIRED', 'What is your name?'))
      return
    }
    if (data.fail) {
      bus.publish(status('TASK_STATE_FAILED', 'it broke'))
      return
    }
    if (data.authorize) {
      bus.publish(
        status('TASK_STATE_AUTH_REQUIRED', 'Authorize calendar access at https://auth.example/consent'),
      )
      return
    }
    bus.publish(artifact(randomUUID(), 'output', { data: { steps } }))
    bus.publish(status('TASK_STATE_COMPLETED'))
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.#cancelled.add(taskId)
    const contextId = this.#contexts.get(taskId) ?? ''
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: now() },
        }),
      ),
    )
  }
}

export interface SdkAgent {
  url: string
  close(): Promise<void>
}

/**
 * The SDK server on 127.0.0.1 and a free port: card, JSON-RPC and HTTP+JSON, as our layout has them.
 * `bearer`: every path, the card included, sits behind a middleware that wants this token.
 */
export const startSdkAgent = async (
  options: { streaming?: boolean; bearer?: string } = {},
): Promise<SdkAgent> => {
  const app = express()
  if (options.bearer) {
    app.use((req, res, next) => {
      if (req.headers.authorization === `Bearer ${options.bearer}`) return next()
      res
        .status(401)
        .set('www-authenticate', 'Bearer realm="sdk"')
        .json({ error: { message: 'bearer token required' } })
    })
  }
  const server: Server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const card = AgentCard.fromJSON({
    name: 'SDK Scripted Agent',
    description: 'An @a2a-js/sdk agent scripted by its input, for client tests.',
    version: '1.3.0-test',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: 'script', name: 'Script', description: 'Does what its input says.', tags: ['test'] }],
  })
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor())
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  )
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  return {
    url,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
