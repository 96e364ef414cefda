import type { Binding } from '../client/a2a.ts'
import { FLOOR, FLOORS, isFloor, STREAM_ARTIFACTS, TARGETS, type Target, TRACED } from '../protocol.ts'

export const SCENARIOS = [
  'send',
  'send-async',
  'get',
  'stream',
  'tokens',
  'push',
  'clawpedia',
  'subscribers',
] as const
export type Scenario = (typeof SCENARIOS)[number]

export const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest', 'grpc']

/** What gRPC rows there are: the request/answer and streaming scenarios (push and held streams are HTTP's). */
export const GRPC_SCENARIOS: readonly Scenario[] = ['send', 'send-async', 'get', 'stream']

/** The rows tracing on is measured in, beside tracing off: the write path and a stream, on one binding. */
export const TRACED_CASES: readonly Case[] = [
  { scenario: 'send', binding: 'jsonrpc' },
  { scenario: 'stream', binding: 'jsonrpc' },
]

const tracedCase = (testCase: Case): boolean =>
  TRACED_CASES.some((c) => c.scenario === testCase.scenario && c.binding === testCase.binding)

/**
 * Which processes `taskset` pins: `split` the server to core 0 and the load generator to core 1,
 * `client` the load generator alone to core 1 (the server, its threads and PostgreSQL go where
 * the kernel puts them), `none` nothing.
 */
export const PINNINGS = ['split', 'client', 'none'] as const
export type Pinning = (typeof PINNINGS)[number]

/** The policy every target runs under unless `--pin` says otherwise (bench/README.md: why). */
export const DEFAULT_PINNING: Pinning = 'none'

/** One row of the results: a scenario over one binding ('clawpedia' for the Clawpedia dialect). */
export interface Case {
  scenario: Scenario
  binding: Binding | 'clawpedia'
}

export interface Plan {
  mode: 'quick' | 'full'
  cases: Case[]
  targets: Target[]
  repeats: number
  warmupMs: number
  measureMs: number
  pinning: Pinning
  connections: number
  /** `get`: completed tasks made before the warm-up. */
  seedTasks: number
  /** `stream`: the artifact updates of each task. */
  streamArtifacts: number
  subscribers: { tasks: number; levels: number[]; batch: number; settleMs: number }
}

export interface PlanFlags {
  quick: boolean
  only?: Scenario[]
  targets?: Target[]
  bindings?: Binding[]
  repeats?: number
  warmupMs?: number
  measureMs?: number
  pinning?: Pinning
  streamArtifacts?: number
}

const casesOf = (scenarios: readonly Scenario[], bindings: readonly Binding[]): Case[] =>
  scenarios.flatMap((scenario): Case[] =>
    scenario === 'clawpedia'
      ? [{ scenario, binding: 'clawpedia' }]
      : bindings
          .filter((binding) => binding !== 'grpc' || GRPC_SCENARIOS.includes(scenario))
          .map((binding) => ({ scenario, binding })),
  )

/**
 * The full mode's warm-up. A fresh server spends its first seconds of load compiling: V8's
 * optimizing compiler runs on helper threads, and on this 2-core machine those threads took a
 * fifth to two thirds of a core, from the server, PostgreSQL and the load generator, in each of
 * the first 4–5 s of every target's load (bench/README.md, _Warm-up_). The window measures a
 * server in its steady state, as a deployment runs, the same for every target.
 */
export const FULL_WARMUP_MS = 5000

/**
 * Quick: the three goal scenarios and 1,000 subscribers over JSON-RPC, without PostgreSQL or the
 * node:http floor, one short round each (under a minute). Full: every scenario over both bindings
 * on every target (gRPC: GRPC_SCENARIOS), three rounds each, the median reported.
 */
export const makePlan = (flags: PlanFlags): Plan => {
  const quick = flags.quick
  const scenarios = flags.only ?? (quick ? (['send', 'get', 'stream', 'subscribers'] as const) : SCENARIOS)
  const bindings = flags.bindings ?? (quick ? (['jsonrpc'] as const) : BINDINGS)
  const contenders = TARGETS.filter(
    (t) => !isFloor(t) && !(quick && (t === 'switchboard-pg' || t === TRACED)),
  )
  const targets = flags.targets ?? (quick ? contenders : [...contenders, ...FLOORS])
  return {
    mode: quick ? 'quick' : 'full',
    cases: casesOf(scenarios, bindings),
    targets,
    repeats: flags.repeats ?? (quick ? 1 : 3),
    warmupMs: flags.warmupMs ?? (quick ? 300 : FULL_WARMUP_MS),
    measureMs: flags.measureMs ?? (quick ? 1000 : 3000),
    pinning: flags.pinning ?? DEFAULT_PINNING,
    connections: 32,
    seedTasks: quick ? 32 : 300,
    streamArtifacts: flags.streamArtifacts ?? STREAM_ARTIFACTS,
    subscribers: quick
      ? { tasks: 50, levels: [1000], batch: 250, settleMs: 250 }
      : { tasks: 50, levels: [1000, 10_000], batch: 250, settleMs: 1000 },
  }
}

/** The rows the floors answer beside the contenders: the goals' send, send-async and stream, over HTTP. */
export const FLOOR_CASES: readonly Case[] = [
  { scenario: 'send', binding: 'jsonrpc' },
  { scenario: 'send', binding: 'rest' },
  { scenario: 'send-async', binding: 'jsonrpc' },
  { scenario: 'send-async', binding: 'rest' },
  { scenario: 'stream', binding: 'jsonrpc' },
  { scenario: 'stream', binding: 'rest' },
]

export const floorCase = (testCase: Case): boolean =>
  FLOOR_CASES.some((c) => c.scenario === testCase.scenario && c.binding === testCase.binding)

/**
 * The Clawpedia dialect is Switchboard's own: the SDK has nothing to compare. The floors appear in
 * FLOOR_CASES, and the node:http floor also holds streams in the subscriber scenario. Quick mode
 * holds streams on Switchboard and the SDK in memory only (to stay within its minute). Tracing on
 * is measured in TRACED_CASES only.
 */
export const targetsFor = (plan: Plan, testCase: Case): Target[] => {
  const targets = plan.targets.filter((t) => t !== TRACED || tracedCase(testCase))
  if (testCase.binding === 'clawpedia') return targets.filter((t) => t.startsWith('switchboard'))
  if (testCase.scenario === 'subscribers')
    // Of the floors, only the node:http one holds streams: the others differ in how they store.
    return targets.filter(
      (t) => (t === FLOOR || !isFloor(t)) && !(plan.mode === 'quick' && t === 'sdk-sqlite'),
    )
  return floorCase(testCase) ? targets : targets.filter((t) => !isFloor(t))
}
