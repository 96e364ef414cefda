import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { areaOf, type CallFrame, keyOf } from '../profile.ts'
import type { Target } from '../protocol.ts'
import type { HeapSamplerSpec, HeapSamples } from './heap-sampler.ts'
import { measureOnce } from './measure.ts'
import type { Case, Plan } from './plan.ts'

interface HeapNode {
  callFrame: CallFrame
  selfSize: number
  children: HeapNode[]
}

export interface HeapRow {
  name: string
  bytesPerOp: number
  pct: number
}

export interface HeapSummary {
  sampledBytes: number
  /** Streams (or sends) the sampled time held: the window's rate over the time from the sampling's start to the window's end. */
  ops: number
  areas: HeapRow[]
  selfTop: HeapRow[]
}

const rows = (totals: Map<string, number>, all: number, ops: number, limit: number): HeapRow[] =>
  [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, bytes]) => ({
      name: name.replace('\u0000', ' '),
      bytesPerOp: bytes / ops,
      pct: (bytes / all) * 100,
    }))

/**
 * What a sampling heap profile says was allocated, per operation: by area (our folders, packages,
 * Node, native builtins under their own name) and by allocating function. A function V8 inlined
 * is counted under the one it was inlined into, as the profile records it.
 */
export const summariseHeap = (profile: { head: HeapNode }, ops: number, limit = 25): HeapSummary => {
  const areas = new Map<string, number>()
  const self = new Map<string, number>()
  let all = 0
  const stack: HeapNode[] = [profile.head]
  for (let node = stack.pop(); node; node = stack.pop()) {
    stack.push(...node.children)
    if (node.selfSize === 0) continue
    all += node.selfSize
    const area = areaOf(node.callFrame)
    const key = keyOf(node.callFrame)
    areas.set(area, (areas.get(area) ?? 0) + node.selfSize)
    self.set(key, (self.get(key) ?? 0) + node.selfSize)
  }
  return { sampledBytes: all, ops, areas: rows(areas, all, ops, 15), selfTop: rows(self, all, ops, limit) }
}

const table = (title: string, list: HeapRow[]): string =>
  [
    `| ${title} | bytes per op | % |`,
    '| --- | ---: | ---: |',
    ...list.map((r) => `| ${r.name} | ${r.bytesPerOp.toFixed(0)} | ${r.pct.toFixed(1)} |`),
  ].join('\n')

export const renderHeapSummary = (summary: HeapSummary): string =>
  [
    `Sampled: ${(summary.sampledBytes / 1e6).toFixed(0)} MB over about ${summary.ops.toFixed(0)} ops, ${(summary.sampledBytes / summary.ops / 1024).toFixed(1)} KB per op.`,
    '',
    table('area', summary.areas),
    '',
    table('allocating function', summary.selfTop),
  ].join('\n')

/** The scenario whose garbage we sample, unless --only names others. */
const SAMPLED: Case[] = [{ scenario: 'stream', binding: 'jsonrpc' }]

/**
 * `--heap-profile`: runs each case once with the heap sampler in the server (harness/heap-sampler.ts)
 * from the end of its warm-up, and writes the sampling profile and its summary to
 * bench/results/heap-profiles/<target>-<scenario>-<binding>/ (`…-promoted/` with `--promoted`).
 */
export const heapProfile = async (options: {
  plan: Plan
  /** The cases to sample (--only); default: `stream` over JSON-RPC. */
  chosen: boolean
  pgUrl: string
  resultsDir: string
  targets: Target[]
  /** Sample only what outlived the young collections (heap-sampler.ts). */
  promoted: boolean
}): Promise<void> => {
  const { promoted } = options
  const plan: Plan = { ...options.plan, measureMs: Math.max(options.plan.measureMs, 6000) }
  const cases = (options.chosen ? plan.cases : SAMPLED).filter((c) => c.scenario !== 'subscribers')
  for (const target of options.targets) {
    for (const testCase of cases) {
      const name = `${target}-${testCase.scenario}-${testCase.binding}${promoted ? '-promoted' : ''}`
      const dir = join(options.resultsDir, 'heap-profiles', name)
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      const file = join(dir, 'samples.json')
      // The server inherits the environment: the sampler reads its instructions there.
      const spec: HeapSamplerSpec = { file, afterMs: plan.warmupMs, promoted }
      process.env.SWITCHBOARD_BENCH_HEAP_PROFILE = JSON.stringify(spec)
      const record = await measureOnce(plan, testCase, target, 1, {
        pgUrl: options.pgUrl,
        nodeFlags: ['--import', 'tsx', '--import', new URL('./heap-sampler.ts', import.meta.url).pathname],
      }).finally(() => {
        delete process.env.SWITCHBOARD_BENCH_HEAP_PROFILE
      })
      const m = record.measurement
      let samples: HeapSamples
      try {
        samples = JSON.parse(readFileSync(file, 'utf8')) as HeapSamples
      } catch {
        process.stderr.write(`${name}: no heap profile (${record.failure ?? 'the server wrote none'})\n`)
        continue
      }
      if (!m) continue
      const sampledSeconds = Math.max(0, (m.windowUs[1] - samples.startedUs) / 1e6)
      const summary = summariseHeap(samples.profile as { head: HeapNode }, m.opsPerSec * sampledSeconds)
      const text = [
        `## ${name} (${promoted ? 'promoted: what outlived the young collections' : 'allocations'})`,
        '',
        `${m.opsPerSec.toFixed(0)} ops/s, ${m.errors} errors (sampling on: slower than the table); sampled for ${sampledSeconds.toFixed(1)} s up to the window's end.`,
        '',
        renderHeapSummary(summary),
      ].join('\n')
      writeFileSync(join(dir, 'summary.md'), `${text}\n`)
      process.stdout.write(`${text}\n\n`)
    }
  }
}
