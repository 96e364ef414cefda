/**
 * The observability example (examples/observability) does what its README says: one command runs
 * a workload through a traced server, prints the spans as trees and the switchboard_* samples of a
 * /metrics scrape, and exits 0.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { captureOutput } from '../helpers/process.ts'
import { parseExposition, sampleValue } from './prometheus-text.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Runs the example to its end; SIGKILL after `limitMs`, a safety net for a hang. */
const runExample = async (limitMs: number): Promise<{ code: number | null; output: string }> => {
  const env = { ...process.env }
  // Its own OTLP exporter would try to reach whatever collector the environment names.
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/observability/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = captureOutput(child)
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
  const [code] = await once(child, 'exit')
  clearTimeout(timer)
  return { code, output: output() }
}

describe('npm run example:observability', () => {
  let output = ''
  let spans: string[] = []
  let metrics: string[] = []
  before(async () => {
    // Cold starts through tsx on a loaded two-core machine take a while; the run itself is seconds.
    const run = await runExample(120_000)
    output = run.output
    assert.equal(run.code, 0, output)
    const spansAt = output.indexOf('\nSpans (')
    const metricsAt = output.indexOf('\nMetrics (')
    assert.ok(spansAt > 0 && metricsAt > spansAt, output)
    spans = output.slice(spansAt, metricsAt).split('\n').slice(2)
    metrics = output.slice(metricsAt).split('\n').slice(2)
  })

  it('reports each scenario of the workload with the state it ended in', () => {
    assert.match(output, /Clawpedia task \(csv-analyst\): COMPLETED/)
    assert.match(output, /A2A streaming task \(long-runner\): COMPLETED after 3 streamed log lines/)
    assert.match(output, /INPUT_REQUIRED answered \(report-builder\): COMPLETED/)
    assert.match(output, /cancel \(long-runner\): CANCELLED/)
  })

  it('prints one span tree per scenario: the client call, the server span, the run beneath it', () => {
    // The store's commit spans sit wherever a write happened to be batched: looked at apart.
    assert.ok(
      spans.some((line) => /^ +store\.commit \[internal\]/.test(line)),
      'commit spans are printed',
    )
    const tree = spans.filter((line) => !/^ +store\.commit /.test(line)).join('\n')
    for (const scenario of ['Clawpedia task', 'A2A streaming task', 'INPUT_REQUIRED answered', 'cancel']) {
      assert.match(tree, new RegExp(`^trace [0-9a-f]{32}\\n {2}example: ${scenario}`, 'm'), tree)
    }
    // Depth is indentation: client (4) → server (6) → the task's life and its run (8), with the
    // state changes as events.
    assert.match(
      tree,
      /^ {4}client POST \[client\].*\n {6}clawpedia\.create \[server\].*agent=csv-analyst.*state=SUBMITTED.*\n {8}· task\.status SUBMITTED\n {8}task \[internal\].*state=COMPLETED\n {10}· task\.status SUBMITTED\n {10}· task\.status WORKING\n {10}· task\.status COMPLETED\n {8}handler\.run \[internal\]/m,
    )
    assert.match(tree, /^ {6}a2a\.SendMessage \[server\].*binding=JSONRPC v=1\.0/m)
    assert.match(tree, /^ {6}a2a\.SubscribeToTask \[server\].*agent=long-runner/m)
    assert.match(tree, /^ {8}handler\.run \[internal\].*agent=report-builder.*suspended=true$/m)
    assert.match(
      tree,
      /^ {6}a2a\.CancelTask \[server\].*state=TASK_STATE_CANCELED.*\n {8}· task\.status CANCELLED/m,
    )
  })

  it('prints the switchboard_* samples of the scrape, buckets left out, counting the workload', () => {
    assert.ok(
      metrics.every((line) => line === '' || line.startsWith('switchboard_')),
      metrics.join('\n'),
    )
    assert.ok(!metrics.some((line) => line.includes('_bucket{')))
    const scraped = parseExposition(metrics.join('\n'))
    assert.equal(sampleValue(scraped, 'switchboard_tasks_created_total', { agent: 'long-runner' }), 2)
    assert.equal(sampleValue(scraped, 'switchboard_tasks_created_total', { agent: 'csv-analyst' }), 1)
    const finished: [agent: string, state: string][] = [
      ['csv-analyst', 'COMPLETED'],
      ['report-builder', 'COMPLETED'],
      ['long-runner', 'COMPLETED'],
      ['long-runner', 'CANCELLED'],
    ]
    for (const [agent, state] of finished) {
      assert.equal(sampleValue(scraped, 'switchboard_tasks_finished_total', { agent, state }), 1)
      assert.equal(sampleValue(scraped, 'switchboard_task_duration_seconds_count', { agent, state }), 1)
    }
    assert.ok(sampleValue(scraped, 'switchboard_store_commit_events_count') > 0)
  })
})
