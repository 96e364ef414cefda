import { TOKEN_CHUNKS } from '../protocol.ts'
import { A2aClient, type A2aOperations, type Binding, type StreamItem, type WireTask } from './a2a.ts'
import { GrpcA2aClient } from './grpc.ts'
import { Http, type SseEvent } from './http.ts'
import { type Measurement, runClosedLoop, type Window } from './load.ts'
import {
  checkAccepted,
  checkCompletedTask,
  checkStream,
  checkTokenStream,
  type Expectation,
  isTerminalState,
  VerificationError,
} from './verify.ts'

export interface LoadSpec extends Window {
  base: string
  binding: Binding
  serverPid: number
  connections: number
  /** Switchboard shows a COMPLETED task's output as an extra artifact. */
  outputArtifact: boolean
  /** `get`: how many completed tasks to read from. */
  seedTasks: number
  /** `stream`: the artifact updates of each task. */
  streamArtifacts: number
  /** PostgreSQL targets: the database whose server processes' CPU is measured too. */
  database?: string
}

/** Polls of one task in `send-async` before the operation counts as failed. */
const MAX_POLLS = 10_000

const withClient = async (
  spec: LoadSpec,
  body: (
    a2a: A2aOperations,
    http: Http,
  ) => Promise<Omit<Measurement, 'extra'> & { extra?: Record<string, number> }>,
): Promise<Measurement> => {
  const http = new Http(spec.base, spec.connections)
  let grpc: GrpcA2aClient | undefined
  try {
    if (spec.binding === 'grpc') grpc = await GrpcA2aClient.connect(http)
    return await body(grpc ?? new A2aClient(http, spec.binding), http)
  } finally {
    grpc?.close()
    await http.close()
  }
}

/** The closed loop's settings of a scenario's spec. */
export const loadOf = (spec: LoadSpec) => ({
  connections: spec.connections,
  serverPid: spec.serverPid,
  warmupMs: spec.warmupMs,
  measureMs: spec.measureMs,
  ...(spec.database !== undefined && { database: spec.database }),
})

/** Blocking SendMessage: WORKING, one artifact, COMPLETED, answered with the completed task. */
export const send = (spec: LoadSpec): Promise<Measurement> => {
  const expect: Expectation = { artifacts: 1, outputArtifact: spec.outputArtifact }
  return withClient(spec, (a2a) =>
    runClosedLoop(loadOf(spec), async () => {
      checkCompletedTask(await a2a.send({ artifacts: 1 }), expect)
    }),
  )
}

/** SendMessage with returnImmediately, then GetTask until the task is terminal (polls back to back). */
export const sendAsync = async (spec: LoadSpec): Promise<Measurement> => {
  const expect: Expectation = { artifacts: 1, outputArtifact: spec.outputArtifact }
  let polls = 0
  let flows = 0
  const result = await withClient(spec, (a2a) =>
    runClosedLoop(loadOf(spec), async () => {
      const accepted = await a2a.send({ artifacts: 1 }, { returnImmediately: true })
      checkAccepted(accepted)
      let task: WireTask = accepted
      for (let i = 0; i < MAX_POLLS && !isTerminalState(task.status?.state); i++) {
        task = await a2a.get(accepted.id)
        polls++
      }
      checkCompletedTask(task, expect, accepted.id)
      flows++
    }),
  )
  return { ...result, extra: { getsPerOp: flows > 0 ? polls / flows : 0 } }
}

/** GetTask on completed tasks made before the warm-up, round robin; each answer checked. */
export const get = (spec: LoadSpec): Promise<Measurement> => {
  const expect: Expectation = { artifacts: 1, outputArtifact: spec.outputArtifact }
  return withClient(spec, async (a2a) => {
    const ids: string[] = []
    const seeders = Array.from({ length: spec.connections }, async () => {
      while (ids.length < spec.seedTasks) {
        const task = await a2a.send({ artifacts: 1 })
        checkCompletedTask(task, expect)
        ids.push(task.id)
      }
    })
    await Promise.all(seeders)
    let next = 0
    return runClosedLoop(loadOf(spec), async () => {
      const id = ids[next++ % ids.length]!
      checkCompletedTask(await a2a.get(id), expect, id)
    })
  })
}

/** SendStreamingMessage of a task with `streamArtifacts` artifact updates, read to the end and checked. */
export const stream = async (spec: LoadSpec): Promise<Measurement> => {
  const artifacts = spec.streamArtifacts
  const expect: Expectation = { artifacts, outputArtifact: spec.outputArtifact }
  let events = 0
  let streams = 0
  const result = await withClient(spec, (a2a) =>
    runClosedLoop(loadOf(spec), async () => {
      const items: StreamItem[] = []
      await a2a.stream({ artifacts }, (item) => items.push(item))
      checkStream(items, expect)
      events += items.length
      streams++
    }),
  )
  return { ...result, extra: { eventsPerOp: streams > 0 ? events / streams : 0 } }
}

/**
 * SendStreamingMessage of a task that streams one artifact in TOKEN_CHUNKS appended pieces, read
 * to the end and checked. Its figure is pieces per second (TOKEN_CHUNKS per operation, whoever
 * serves it, so the ratio is the operations'); `itemsPerOp` counts every stream item.
 */
export const tokens = async (spec: LoadSpec): Promise<Measurement> => {
  let items = 0
  let streams = 0
  const result = await withClient(spec, (a2a) =>
    runClosedLoop(loadOf(spec), async () => {
      const received: StreamItem[] = []
      await a2a.stream({ chunks: TOKEN_CHUNKS }, (item) => received.push(item))
      checkTokenStream(received, TOKEN_CHUNKS)
      items += received.length
      streams++
    }),
  )
  return {
    ...result,
    extra: {
      eventsPerSec: result.opsPerSec * TOKEN_CHUNKS,
      cpuMsPer1kEvents: result.cpuMsPer1k / TOKEN_CHUNKS,
      itemsPerOp: streams > 0 ? items / streams : 0,
    },
  }
}

interface ClawpediaTask {
  task_id?: string
  status?: string
  output?: unknown
}

/**
 * The Clawpedia dialect: POST /tasks (202), then GET /tasks/{id}/stream until the task is
 * COMPLETED: status frames, one artifact.update, and the final status with the output.
 */
export const clawpedia = async (spec: LoadSpec): Promise<Measurement> => {
  let events = 0
  let streams = 0
  const http = new Http(spec.base, spec.connections)
  try {
    const result = await runClosedLoop(loadOf(spec), async () => {
      const created = await http.json('POST', '/tasks', { input: { artifacts: 1 } })
      const task = created.body as ClawpediaTask
      if (created.status !== 202 || typeof task.task_id !== 'string')
        throw new VerificationError(`POST /tasks answered ${created.status}`)
      const frames: SseEvent[] = []
      await http.sse('GET', `/tasks/${task.task_id}/stream`, undefined, {}, (frame) => frames.push(frame))
      const artifacts = frames.filter((f) => f.event === 'artifact.update').length
      const last = frames.at(-1)
      const final = last?.data as ClawpediaTask | undefined
      if (artifacts !== 1) throw new VerificationError(`the stream has ${artifacts} artifact updates`)
      if (last?.event !== 'status' || final?.status !== 'COMPLETED' || final.task_id !== task.task_id)
        throw new VerificationError(`the stream ends with ${last?.event} ${final?.status}`)
      events += frames.length
      streams++
    })
    return { ...result, extra: { eventsPerOp: streams > 0 ? events / streams : 0 } }
  } finally {
    await http.close()
  }
}
