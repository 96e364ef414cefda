import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { type AgentCard, type Artifact, type Message, TaskState } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type PushNotificationStore,
  type RequestContext,
  type TaskStore,
} from '@a2a-js/sdk/server'
import { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from '@a2a-js/sdk/server/grpc'
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js'
import express from 'express'
import { Kysely, SqliteDialect } from 'kysely'
import { SqliteDatabase as Database, SQLITE_DRIVER } from '../../src/store/sqlite/driver.ts'
import {
  artifactCount,
  artifactName,
  artifactText,
  type BenchInput,
  chunkCount,
  HOLD_LIMIT_MS,
  JSONRPC_PATH,
  REST_PATH,
  type ServerOptions,
  TOKENS_ARTIFACT,
  tokenText,
} from '../protocol.ts'

const now = (): string => new Date().toISOString()

const inputOf = (message: Message): BenchInput => {
  for (const part of message.parts) {
    if (part.content?.$case === 'data' && typeof part.content.value === 'object') {
      return part.content.value as BenchInput
    }
  }
  return {}
}

const textArtifact = (artifactId: string, name: string, text: string): Artifact => ({
  artifactId,
  name,
  description: '',
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
})

/**
 * The same trivial agent as Switchboard's, in the SDK's executor style: the Task, WORKING, n
 * artifact updates, COMPLETED. A held task stays WORKING until CancelTask (or the hold limit).
 * Token streaming is one artifact in `chunks` artifact updates, as the SDK streams an artifact:
 * the first creates it, each later one has `append: true`, the last `lastChunk: true`.
 */
class BenchExecutor implements AgentExecutor {
  readonly #held = new Map<string, { contextId: string; release: () => void }>()

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request
    const input = inputOf(request.userMessage)
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [request.userMessage],
        metadata: undefined,
      }),
    )
    const status = (state: TaskState) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: undefined, timestamp: now() },
        metadata: undefined,
      })
    bus.publish(status(TaskState.TASK_STATE_WORKING))
    if (input.hold === true) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, HOLD_LIMIT_MS)
        this.#held.set(taskId, {
          contextId,
          release: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      })
      return
    }
    const update = (artifact: Artifact, append: boolean, lastChunk: boolean) =>
      AgentEvent.artifactUpdate({ taskId, contextId, artifact, append, lastChunk, metadata: undefined })
    const chunks = chunkCount(input)
    const streamed = randomUUID()
    for (let i = 0; i < chunks; i++) {
      bus.publish(update(textArtifact(streamed, TOKENS_ARTIFACT, tokenText(i)), i > 0, i === chunks - 1))
    }
    const count = chunks > 0 ? 0 : artifactCount(input)
    for (let i = 0; i < count; i++) {
      bus.publish(update(textArtifact(randomUUID(), artifactName(i), artifactText(i)), false, true))
    }
    bus.publish(status(TaskState.TASK_STATE_COMPLETED))
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const held = this.#held.get(taskId)
    if (!held) return
    this.#held.delete(taskId)
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: held.contextId,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
        metadata: undefined,
      }),
    )
    held.release()
  }
}

const cardFor = (base: string, grpcAddress: string, push: boolean): AgentCard => ({
  name: 'Bench',
  description: 'The benchmark agent: publishes n text artifacts, or holds until cancelled.',
  supportedInterfaces: [
    { url: `${base}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${base}${REST_PATH}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    { url: grpcAddress, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  ],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: push, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'bench', name: 'Bench', description: 'Benchmark agent.', tags: ['bench'] }] as never,
  signatures: [],
})

/**
 * The SDK's SQLite stores as its persistent-stores guide sets them up: its own migrations (the
 * a2a-db CLI), then one Kysely over better-sqlite3 for both stores. One addition, in the SDK's
 * favour: WAL mode with synchronous=NORMAL, the durability settings of Switchboard's SQLite store
 * (the guide's bare connection would be rollback-journal, synchronous=FULL: slower).
 */
const sqliteStores = async (
  dataDir: string,
): Promise<{ tasks: TaskStore; pushes: () => PushNotificationStore }> => {
  const file = join(dataDir, 'a2a.db')
  // The a2a-db CLI in a process of its own, as a user runs `a2a-db upgrade`, on the SQLite driver a
  // user of this Node installs (sdk-cli-driver.mjs). Not in this process: the CLI opens its
  // connection with the `better-sqlite3` package (12 here), and on Node 24 the collection of that
  // closed connection aborted the server during the load (see src/store/sqlite/driver.ts).
  const cli = join(import.meta.dirname, '../../node_modules/@a2a-js/sdk/dist/cli/a2a_db.js')
  const driver = join(import.meta.dirname, 'sdk-cli-driver.mjs')
  await promisify(execFile)(
    process.execPath,
    ['--import', driver, cli, 'upgrade', '--url', `sqlite:${file}`],
    {
      env: { ...process.env, SWITCHBOARD_SQLITE_DRIVER: SQLITE_DRIVER },
    },
  ).catch((error: { stderr?: string }) => {
    throw new Error(`the SDK migrations failed: ${error.stderr ?? error}`)
  })
  const database = new Database(file)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 5000')
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) })
  return { tasks: new DatabaseTaskStore(db), pushes: () => new DatabasePushNotificationStore(db) }
}

/**
 * @a2a-js/sdk 1.3 on express 5, mounted as its README shows, with the in-memory or SQLite stores,
 * and its gRPC service (`grpcService` on a grpc-js server of its own port) over the same handler.
 * A push store and sender only where the scenario pushes: with `pushNotifications` on its card,
 * the handler would make them anyway, and look the task's push configs up at every event.
 */
export const startSdk = async (options: ServerOptions): Promise<{ base: string; close(): Promise<void> }> => {
  const stores =
    options.target === 'sdk-sqlite'
      ? await sqliteStores(options.dataDir)
      : { tasks: new InMemoryTaskStore(), pushes: () => new InMemoryPushNotificationStore() }
  const push = options.push === true
  const app = express()
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const grpc = new GrpcServer()
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  )
  const card = cardFor(base, `127.0.0.1:${grpcPort}`, push)
  const pushes = push ? stores.pushes() : undefined
  const handler = pushes
    ? new DefaultRequestHandler(
        card,
        stores.tasks,
        new BenchExecutor(),
        undefined,
        pushes,
        new DefaultPushNotificationSender(pushes),
      )
    : new DefaultRequestHandler(card, stores.tasks, new BenchExecutor())
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  app.use(
    JSONRPC_PATH,
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  )
  app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  grpc.addService(
    A2AService,
    grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }),
  )
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        grpc.forceShutdown()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
