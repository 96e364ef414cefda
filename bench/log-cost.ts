/**
 * `npx tsx bench/log-cost.ts [--lines 200000] [--rounds 3]`: what the server logger spends on one
 * access line (the `request` line every request writes, docs/observability.md), written to
 * /dev/null by the default destination (src/server/log-lines.ts) and by pino's own
 * (`pino.destination`, sonic-boom), alternated for `--rounds` rounds after a warm-up of each. It
 * prints the process's CPU per line of each round, and the medians.
 */
import { openSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { type Logger, pino } from 'pino'
import { logLines } from '../src/server/log-lines.ts'
import { createServerLogger } from '../src/server/redaction.ts'
import { median } from './harness/aggregate.ts'

const { values: args } = parseArgs({
  options: { lines: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '3' } },
})
const lines = Number(args.lines)
const rounds = Number(args.rounds)
if (!(lines > 0) || !(rounds > 0)) throw new Error('--lines and --rounds take positive numbers')

const accessLine = (logger: Logger, n: number): void =>
  logger.info(
    {
      method: 'POST',
      route: '/agents/bench/a2a/jsonrpc',
      status: 200,
      durationMs: 14.5,
      principal: 'default',
      tenant: 'default',
      agent: 'bench',
      taskId: `01a24c2d-06f3-7000-be4d-${String(n).padStart(12, '0')}`,
    },
    'request',
  )

const destinations = {
  'log-lines.ts (the default)': () => logLines({ fd: openSync('/dev/null', 'w') }),
  'pino.destination (sonic-boom)': () => pino.destination({ dest: '/dev/null' }),
}

const loggers = Object.entries(destinations).map(([name, destination]) => ({
  name,
  logger: createServerLogger({ level: 'info', authenticators: [], destination: destination() }),
  perLine: [] as number[],
}))
for (const { logger } of loggers) for (let n = 0; n < 20_000; n++) accessLine(logger, n)
for (let round = 1; round <= rounds; round++) {
  for (const entry of loggers) {
    const before = process.cpuUsage()
    for (let n = 0; n < lines; n++) accessLine(entry.logger, n)
    const used = process.cpuUsage(before)
    entry.perLine.push((used.user + used.system) / lines)
    console.log(`round ${round}  ${entry.name}: ${entry.perLine.at(-1)!.toFixed(2)} µs CPU a line`)
  }
}
for (const { name, perLine } of loggers)
  console.log(`median  ${name}: ${median(perLine).toFixed(2)} µs CPU a line`)
