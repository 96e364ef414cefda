import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { A2aClient, type StreamItem } from './a2a.ts'
import { Http } from './http.ts'
import { type Measurement, runClosedLoop } from './load.ts'
import { type LoadSpec, loadOf } from './scenarios.ts'
import { checkCompletedTask, type Expectation, isTerminalState, VerificationError } from './verify.ts'

interface TaskDeliveries {
  count: number
  /** Set once the terminal status arrived. */
  terminal: boolean
  /** Deliveries after the terminal one: a broken per-task order. */
  late: number
  /** The operation waiting for the terminal status, if it is waiting. */
  waiter?: () => void
}

/** An operation whose terminal notification takes longer than this failed. */
const DELIVERY_TIMEOUT_MS = 30_000

/** The task id and state a webhook body (a StreamResponse) is about. */
const aboutOf = (item: StreamItem): { taskId?: string; state?: string } => {
  if (item.statusUpdate) return { taskId: item.statusUpdate.taskId, state: item.statusUpdate.status?.state }
  if (item.artifactUpdate) return { taskId: item.artifactUpdate.taskId }
  if (item.task) return { taskId: item.task.id, state: item.task.status?.state }
  return {}
}

/** The webhook receiver: counts deliveries per task, in this process (the load generator's core). */
const startReceiver = async (token: string) => {
  const byTask = new Map<string, TaskDeliveries>()
  const stats = { received: 0, rejected: 0 }
  const entryOf = (taskId: string): TaskDeliveries => {
    let entry = byTask.get(taskId)
    if (!entry) {
      entry = { count: 0, terminal: false, late: 0 }
      byTask.set(taskId, entry)
    }
    return entry
  }
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      response.writeHead(200).end()
      let item: StreamItem
      try {
        item = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StreamItem
      } catch {
        stats.rejected++
        return
      }
      const { taskId, state } = aboutOf(item)
      if (request.headers['x-a2a-notification-token'] !== token || taskId === undefined) {
        stats.rejected++
        return
      }
      stats.received++
      const entry = entryOf(taskId)
      entry.count++
      if (entry.terminal) entry.late++
      else if (isTerminalState(state)) {
        entry.terminal = true
        entry.waiter?.()
      }
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stats,
    byTask,
    /** Resolves once the task's terminal notification has arrived (maybe already). */
    terminal(taskId: string): Promise<void> {
      const entry = entryOf(taskId)
      if (entry.terminal) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          entry.waiter = undefined
          reject(
            new VerificationError(`no terminal notification for ${taskId} within ${DELIVERY_TIMEOUT_MS} ms`),
          )
        }, DELIVERY_TIMEOUT_MS)
        entry.waiter = () => {
          clearTimeout(timer)
          entry.waiter = undefined
          resolve()
        }
      })
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Webhook deliveries per second, closed loop: each of the 32 workers sends a blocking
 * SendMessage with an inline push config (url + token) aimed at a receiver in this process, then
 * waits for that task's terminal notification before sending the next, so the backlog stays
 * bounded and the rate is one the server sustains. Latency: from sending the message to the
 * terminal notification's arrival. A notification after the terminal one is an error.
 */
export const push = async (spec: LoadSpec): Promise<Measurement> => {
  const token = randomUUID()
  const receiver = await startReceiver(token)
  const http = new Http(spec.base, spec.connections)
  const a2a = new A2aClient(http, spec.binding)
  const expect: Expectation = { artifacts: 1, outputArtifact: spec.outputArtifact }
  let measuredReceived = 0
  try {
    let receivedAtStart = 0
    const result = await runClosedLoop(
      loadOf(spec),
      async () => {
        const task = await a2a.send({ artifacts: 1 }, { push: { url: receiver.url, token } })
        checkCompletedTask(task, expect)
        await receiver.terminal(task.id)
      },
      {
        start: () => {
          receivedAtStart = receiver.stats.received
        },
        stop: () => {
          measuredReceived = receiver.stats.received - receivedAtStart
        },
      },
    )
    let late = 0
    let deliveries = 0
    let tasks = 0
    for (const entry of receiver.byTask.values()) {
      late += entry.late
      deliveries += entry.count
      tasks++
    }
    const errors = result.errors + late + receiver.stats.rejected
    const firstError =
      result.firstError ??
      (late > 0 ? `${late} notifications arrived after their task's terminal one` : undefined) ??
      (receiver.stats.rejected > 0
        ? `${receiver.stats.rejected} notifications had no task or a bad token`
        : undefined)
    // The operations are tasks; the figure of merit is webhooks, so count those per second and per CPU.
    return {
      ...result,
      errors,
      ...(firstError !== undefined && { firstError }),
      opsPerSec: measuredReceived / result.seconds,
      cpuMsPer1k: measuredReceived > 0 ? (result.serverCpuMs * 1000) / measuredReceived : 0,
      extra: {
        tasksPerSec: result.opsPerSec,
        deliveriesPerTask: tasks > 0 ? deliveries / tasks : 0,
      },
    }
  } finally {
    await http.close()
    await receiver.close()
  }
}
