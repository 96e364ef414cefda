import { execFileSync } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { aggregate, type RunRecord } from './aggregate.ts'
import { judgeGoals, renderGoals } from './goals.ts'
import type { Plan } from './plan.ts'
import { type Machine, renderHeader, renderTables } from './report.ts'

const START = '<!-- bench:results:start -->'
const END = '<!-- bench:results:end -->'

/**
 * The run the README's tables are from. A run that does not write the README (`--no-readme`: one
 * scenario, another artifact count) leaves its outcome beside it, so that it never replaces the
 * published run that `--from-results` renders again.
 */
export const PUBLISHED = 'latest.json'
export const UNPUBLISHED = 'unpublished.json'

/** Everything a run leaves behind (PUBLISHED or UNPUBLISHED), from which the report can be rendered again. */
export interface RunOutcome {
  command: string
  plan: Plan
  machine: Machine
  /** When the run ended (ISO 8601). */
  date: string
  seconds: number
  notes: string[]
  records: RunRecord[]
}

/**
 * Prints the report, writes its outcome, and puts the report between the markers of the README
 * (then formats it as Biome would, so the checked-in file stays lint-clean).
 */
export const publish = (outcome: RunOutcome, paths: { results: string; readme?: string }): void => {
  const results = aggregate(outcome.records)
  const goals = judgeGoals(results)
  const report = [
    renderHeader({ ...outcome, results }),
    '',
    '#### Goals',
    '',
    renderGoals(goals),
    '',
    renderTables(outcome.plan, results),
  ].join('\n')
  process.stdout.write(`\n${report}\n`)
  writeFileSync(
    join(paths.results, paths.readme ? PUBLISHED : UNPUBLISHED),
    `${JSON.stringify({ ...outcome, goals, results }, null, 2)}\n`,
  )
  if (!paths.readme) return
  const readme = readFileSync(paths.readme, 'utf8')
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start < 0 || end < start) return
  writeFileSync(paths.readme, `${readme.slice(0, start + START.length)}\n\n${report}\n\n${readme.slice(end)}`)
  try {
    const biome = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'biome')
    execFileSync(biome, ['format', '--write', paths.readme], { stdio: 'ignore' })
  } catch {
    // Formatting is cosmetic; the tables are already written.
  }
}

export const readOutcome = (results: string): RunOutcome => {
  const file = join(results, PUBLISHED)
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome
  // Files from before the run date was recorded: the file's own time is close enough.
  outcome.date ??= statSync(file).mtime.toISOString()
  // Runs from before the pinning policy was a choice pinned server and load generator apart.
  outcome.plan.pinning ??= 'split'
  return outcome
}
