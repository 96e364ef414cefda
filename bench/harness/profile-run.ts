import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readProfile, renderSummary, summarise } from '../profile.ts'
import type { Target } from '../protocol.ts'
import { measureOnce } from './measure.ts'
import type { Case, Plan } from './plan.ts'

/** The scenarios whose hot paths we profile, unless --only names others. */
const PROFILED: Case[] = [
  { scenario: 'send', binding: 'jsonrpc' },
  { scenario: 'stream', binding: 'jsonrpc' },
]

/**
 * Runs each case once with `node --cpu-prof` on the server, cuts the main thread's profile to the
 * measured window, and writes its summary next to the .cpuprofile (bench/results/profiles/).
 */
export const profile = async (options: {
  plan: Plan
  /** The cases to profile (--only); default: `send` and `stream` over JSON-RPC. */
  chosen: boolean
  pgUrl: string
  resultsDir: string
  targets: Target[]
}): Promise<void> => {
  const { plan } = options
  const cases = (options.chosen ? plan.cases : PROFILED).filter((c) => c.scenario !== 'subscribers')
  const profilePlan: Plan = {
    ...plan,
    warmupMs: Math.max(plan.warmupMs, 2000),
    measureMs: Math.max(plan.measureMs, 6000),
  }
  for (const target of options.targets) {
    for (const testCase of cases) {
      const name = `${target}-${testCase.scenario}-${testCase.binding}`
      const dir = join(options.resultsDir, 'profiles', name)
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      const record = await measureOnce(profilePlan, testCase, target, 1, {
        pgUrl: options.pgUrl,
        nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      })
      const m = record.measurement
      if (!m) {
        process.stderr.write(
          `${name}: no measurement (${record.failure ?? 'subscribers are not profiled'})\n`,
        )
        continue
      }
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader is another).
      const main = readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
      if (!main) {
        process.stderr.write(`${name}: the server wrote no profile\n`)
        continue
      }
      const summary = summarise(readProfile(join(dir, main)), m.windowUs)
      const text = [
        `## ${name}`,
        '',
        `${m.opsPerSec.toFixed(0)} ops/s, ${m.cpuMsPer1k.toFixed(0)} ms server CPU per 1,000 ops, ${m.errors} errors (profiler on: slower than the table).`,
        '',
        renderSummary(summary),
      ].join('\n')
      writeFileSync(join(dir, 'summary.md'), `${text}\n`)
      // The window and the rates, for a tool that cuts or compares these profiles again.
      const window = { windowUs: m.windowUs, opsPerSec: m.opsPerSec, cpuMsPer1k: m.cpuMsPer1k }
      writeFileSync(join(dir, 'window.json'), `${JSON.stringify(window)}\n`)
      process.stdout.write(`${text}\n\n`)
    }
  }
}
