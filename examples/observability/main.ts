/**
 * Traces and metrics of a Switchboard server, seen locally with no collector and no Docker:
 *
 *   npm run example:observability
 *
 * Starts a server with the demo agents and tracing on (an in-memory exporter in this process, plus
 * OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set), runs a small workload through our client,
 * scrapes /metrics with the admin token, then prints every span as a tree per trace and the
 * switchboard_* samples, and exits. See README.md here.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { connect } from '../../src/client.ts'
import { createSwitchboard, demoAgents } from '../../src/server.ts'
import { formatSpanTree } from './span-tree.ts'

const collected = new InMemorySpanExporter()
const processors: SpanProcessor[] = [new SimpleSpanProcessor(collected)]
// The same variables `switchboard serve` reads: the exporter takes its endpoint, headers and
// timeout from them, so a real collector receives the spans printed here too.
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
  processors.push(new BatchSpanProcessor(new OTLPTraceExporter()))
}
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({
    'service.name': process.env.OTEL_SERVICE_NAME ?? 'switchboard-example',
  }),
  spanProcessors: processors,
})
// Global: the spans below the request (runs, the client's calls) and W3C propagation need it.
provider.register()
const tracer = trace.getTracer('switchboard-example')

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-observability-'))
const adminToken = randomBytes(16).toString('hex')
const switchboard = await createSwitchboard({
  agents: demoAgents,
  port: Number(process.env.PORT ?? 0),
  dataDir,
  grpc: { port: 'off' },
  logLevel: 'warn',
  admin: { token: adminToken },
  tracing: { tracerProvider: provider },
})
const url = await switchboard.listen()
const say = (line: string): void => void process.stdout.write(`${line}\n`)
say(`Switchboard listening on ${url} (tracing on, metrics at ${url}/metrics)`)

/** One scenario, one trace: its root span is the parent of every client call made inside it. */
const scenario = async (name: string, work: () => Promise<string>): Promise<void> => {
  const outcome = await tracer.startActiveSpan(`example: ${name}`, async (span) => {
    try {
      return await work()
    } finally {
      span.end()
    }
  })
  say(`  ${name}: ${outcome}`)
}

const agentAt = (slug: string, prefer: 'clawpedia' | 'jsonrpc') =>
  connect(`${url}/agents/${slug}`, { prefer: [prefer], cache: false })

const expect = (what: string, state: string, wanted: string): string => {
  if (state !== wanted) throw new Error(`${what} ended ${state}, not ${wanted}`)
  return state
}

const workload = async (): Promise<void> => {
  say('Workload:')
  await scenario('Clawpedia task (csv-analyst)', async () => {
    const agent = await agentAt('csv-analyst', 'clawpedia')
    const task = await agent.send({ csv: 'name,age\nAda,36\nAlan,41\nGrace,85\n' })
    return expect('the Clawpedia task', (await task.wait()).state, 'COMPLETED')
  })
  await scenario('A2A streaming task (long-runner)', async () => {
    const task = await (await agentAt('long-runner', 'jsonrpc')).send({ steps: 3, step_ms: 20 })
    let logs = 0
    for await (const update of task.events()) if (update.type === 'log') logs++
    return `${expect('the A2A stream', task.status, 'COMPLETED')} after ${logs} streamed log lines`
  })
  await scenario('INPUT_REQUIRED answered (report-builder)', async () => {
    const task = await (await agentAt('report-builder', 'jsonrpc')).send({ subject: 'tide pools' })
    for await (const update of task.events()) {
      if (update.type === 'status' && update.task.state === 'INPUT_REQUIRED')
        await task.provideInput({ sections: ['Habitat', 'Species'] })
    }
    return expect('the multi-turn task', task.status, 'COMPLETED')
  })
  await scenario('cancel (long-runner)', async () => {
    const task = await (await agentAt('long-runner', 'jsonrpc')).send({ steps: 10_000, step_ms: 20 })
    // Its first progress line says the run is under way: a cancel now stops a running handler.
    for await (const update of task.events()) if (update.type === 'log') break
    await task.cancel()
    return expect('the cancelled task', (await task.wait()).state, 'CANCELLED')
  })
}

/** The documented way past the admin guard: `Authorization: Bearer <admin token>`. */
const scrape = async (): Promise<string> => {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`)
  return response.text()
}

let failed = false
let exposition = ''
try {
  await workload()
  exposition = await scrape()
} catch (error) {
  failed = true
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
} finally {
  // Closing ends the last spans (streams end with the server) before they are printed.
  await switchboard.close()
  await provider.forceFlush()
  rmSync(dataDir, { recursive: true, force: true })
}

say('\nSpans (one tree per trace; · is a span event):')
for (const line of formatSpanTree(collected.getFinishedSpans())) say(line)
await provider.shutdown()

// Histogram buckets are many lines each; _sum and _count say enough here (the dashboard uses them).
const samples = exposition.split('\n').filter((line) => /^switchboard_/.test(line) && !/_bucket\{/.test(line))
say(`\nMetrics (GET /metrics, switchboard_* samples, buckets left out):`)
for (const line of samples) say(line)
process.exitCode = failed ? 1 : 0
