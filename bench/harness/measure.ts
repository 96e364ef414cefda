import { loadavg } from 'node:os'
import type { Binding } from '../client/a2a.ts'
import type { ClientSpec } from '../client/main.ts'
import { type Target, usesPostgres } from '../protocol.ts'
import type { RunRecord } from './aggregate.ts'
import type { Case, Pinning, Plan } from './plan.ts'
import { databaseName } from './postgres.ts'
import { startClient, startServer } from './processes.ts'

/** The cores `taskset` pins each process to under a pinning policy (none: unpinned). */
export const coresOf = (pinning: Pinning): { server?: number; client?: number } =>
  pinning === 'split' ? { server: 0, client: 1 } : pinning === 'client' ? { client: 1 } : {}

/** What the load generator is asked to do for one case against one running server. */
export const clientSpec = (
  plan: Plan,
  testCase: Case,
  server: { base: string; pid: number; memoryFile: string; database?: string },
): ClientSpec => {
  const { base, pid: serverPid } = server
  const binding: Binding = testCase.binding === 'clawpedia' ? 'jsonrpc' : testCase.binding
  const load = {
    base,
    binding,
    serverPid,
    connections: plan.connections,
    // The bench agent returns nothing: since issue 14, no task has an output artifact (the check stays for agents that do).
    outputArtifact: false,
    seedTasks: plan.seedTasks,
    streamArtifacts: plan.streamArtifacts,
    warmupMs: plan.warmupMs,
    measureMs: plan.measureMs,
    ...(server.database !== undefined && { database: server.database }),
  }
  switch (testCase.scenario) {
    case 'subscribers':
      return {
        scenario: 'subscribers',
        base,
        binding,
        serverPid,
        memoryFile: server.memoryFile,
        ...plan.subscribers,
      }
    default:
      return { scenario: testCase.scenario, ...load }
  }
}

const clientTimeout = (plan: Plan, testCase: Case): number =>
  testCase.scenario === 'subscribers' ? 300_000 : plan.warmupMs + plan.measureMs + 120_000

/**
 * One round: a fresh server (fresh data directory or database), the load generator in its own
 * process, then the server stopped. Failures are recorded, not thrown: the other rows still run.
 */
export const measureOnce = async (
  plan: Plan,
  testCase: Case,
  target: Target,
  round: number,
  options: { pgUrl: string; nodeFlags?: string[] },
): Promise<RunRecord> => {
  const record: RunRecord = { ...testCase, target, round }
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  const cores = coresOf(plan.pinning)
  const client = startClient(cores.client === undefined ? {} : { core: cores.client })
  try {
    server = await startServer(target, {
      ...(cores.server !== undefined && { core: cores.server }),
      push: testCase.scenario === 'push',
      pgUrl: options.pgUrl,
      ...(options.nodeFlags && { nodeFlags: options.nodeFlags }),
    })
    const spec = clientSpec(plan, testCase, {
      ...server.ready,
      ...(usesPostgres(target) && { database: databaseName(options.pgUrl) }),
    })
    const result = await client.run<object>(spec, clientTimeout(plan, testCase))
    if (testCase.scenario === 'subscribers') record.subscribers = result as RunRecord['subscribers']
    else record.measurement = result as RunRecord['measurement']
  } catch (error) {
    record.failure = (error as Error).message
    client.cancel()
  } finally {
    record.load = loadavg()[0]!
    await server?.stop()
  }
  return record
}
