import { openSync } from 'node:fs'
import type { AgentDefinition } from '../../src/agent/define.ts'
import type { TracingOptions } from '../../src/observability/tracing.ts'
import { built } from '../harness/build.ts'
import {
  artifactCount,
  artifactName,
  artifactText,
  type BenchInput,
  chunkCount,
  HOLD_LIMIT_MS,
  type ServerOptions,
  TOKENS_ARTIFACT,
  TRACED,
  tokenText,
} from '../protocol.ts'

// Switchboard as an application runs it: the package's build (`dist/`, where its `exports` point),
// which the run makes first (harness/build.ts), as the SDK runs from its own compiled `dist/`.
const [{ defineAgent }, { createServerLogger }, { logLines }, { createSwitchboard }] = await Promise.all([
  built<typeof import('../../src/agent/define.ts')>('agent/define.js'),
  built<typeof import('../../src/server/redaction.ts')>('server/redaction.js'),
  built<typeof import('../../src/server/log-lines.ts')>('server/log-lines.js'),
  built<typeof import('../../src/server/server.ts')>('server/server.js'),
])

/** Resolves when the task is cancelled (or the hold limit passes). */
const held = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, HOLD_LIMIT_MS)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })

/**
 * The trivial agent, written as an application would: each artifact awaited (the run accepts it
 * at once and commits it with the outcome, durable before anyone sees it), no log lines, and no
 * output object: the COMPLETED task has no artifact named "output", as on the SDK. Token
 * streaming is `ctx.artifactStream`: each piece awaited the same way, the last one ends it.
 */
export const benchAgent: AgentDefinition = defineAgent({
  id: '5b1e0f4c-2d3a-4e6b-8c9d-0a1b2c3d4e5f',
  slug: 'bench',
  name: 'Bench',
  description: 'The benchmark agent: publishes n text artifacts, or holds until cancelled.',
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    const request = input as BenchInput
    if (request.hold === true) {
      await held(ctx.signal)
      return undefined
    }
    const chunks = chunkCount(request)
    if (chunks > 0) {
      const stream = await ctx.artifactStream({ name: TOKENS_ARTIFACT })
      for (let i = 0; i < chunks - 1; i++) await stream.append(tokenText(i))
      await stream.end(tokenText(chunks - 1))
      return undefined
    }
    const count = artifactCount(request)
    for (let i = 0; i < count; i++) {
      await ctx.artifact({ type: 'text', name: artifactName(i), text: artifactText(i) })
    }
    return undefined
  },
})

/**
 * Tracing on as `serve --otel` sets it up (a Node tracer provider registered globally, a batch span
 * processor), every span sampled, and an exporter that drops each batch: the cost of making and
 * batching the spans is measured, not a collector's.
 */
const benchTracing = async (): Promise<TracingOptions> => {
  const [{ NodeTracerProvider }, { AlwaysOnSampler, BatchSpanProcessor }, { ExportResultCode }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/core'),
    ])
  const dropping = {
    export: (_spans: unknown[], done: (result: { code: number }) => void) =>
      done({ code: ExportResultCode.SUCCESS }),
    shutdown: async () => {},
  }
  const provider = new NodeTracerProvider({
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(dropping)],
  })
  provider.register()
  return { tracerProvider: provider, shutdown: () => provider.shutdown() }
}

/**
 * Switchboard on SQLite (a fresh data directory) or PostgreSQL, webhooks to loopback allowed, and
 * logging as a user runs it: the default logger at `info` (an access line per request, a line
 * per task created and finished), written to /dev/null instead of stdout (our stdout is the
 * ready line's pipe). The lines are made and written; only their reader is missing.
 */
export const startSwitchboard = async (
  options: ServerOptions,
): Promise<{ base: string; close(): Promise<void> }> => {
  const switchboard = await createSwitchboard({
    agents: [benchAgent],
    dataDir: options.dataDir,
    ...(options.pgUrl && { store: options.pgUrl }),
    logger: createServerLogger({
      level: 'info',
      authenticators: [],
      destination: logLines({ fd: openSync('/dev/null', 'w') }),
      traceIds: options.target === TRACED,
    }),
    port: 0,
    // The webhook receiver of the push scenario listens on loopback, which the default policy refuses.
    outbound: { allow: ['127.0.0.0/8'] },
    engine: { shutdownGraceMs: 200 },
    push: { drainMs: 200 },
    ...(options.target === TRACED && { tracing: await benchTracing() }),
  })
  const url = await switchboard.listen()
  return { base: `${url}/agents/bench`, close: () => switchboard.close() }
}
