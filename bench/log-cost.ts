/**
 * `npx tsx bench/log-cost.ts [--lines 200000] [--rounds 3] [--per-turn 3]`: what the server logger
 * spends on one access line (the `request` line every request writes, docs/observability.md),
 * written to /dev/null by the default destination (src/server/log-lines.ts: a turn's lines in one
 * write), by a destination writing each line as it comes (the default before 2026-12-06), and by
 * pino's own (`pino.destination`, sonic-boom, one write a line), alternated for `--rounds` rounds
 * after a warm-up of each. `--per-turn` lines are logged in each turn of the event loop, as a
 * server logs a request's lines in the turns it answers it. It prints the process's CPU per line
 * of each round, and the medians.
 */
import { openSync, writeSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { type DestinationStream, type Logger, pino } from 'pino'
import { logLines } from '../src/server/log-lines.ts'
import { createServerLogger } from '../src/server/redaction.ts'
import { median } from './harness/aggregate.ts'

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    'per-turn': { type: 'string', default: '3' },
  },
})
const lines = Number(args.lines)
const rounds = Number(args.rounds)
const perTurn = Number(args['per-turn'])
if (!(lines > 0) || !(rounds > 0) || !(perTurn > 0))
  throw new Error('--lines, --rounds and --per-turn take positive numbers')

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

const eachLine = (fd: number): DestinationStream => ({ write: (line: string) => void writeSync(fd, line) })

const destinations = {
  'log-lines.ts (the default)': () => logLines({ fd: openSync('/dev/null', 'w') }),
  'a write a line': () => eachLine(openSync('/dev/null', 'w')),
  'pino.destination (sonic-boom)': () => pino.destination({ dest: '/dev/null' }),
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** `count` lines, `perTurn` in each turn; the last turn's lines are written before it returns. */
const logTurns = async (logger: Logger, count: number): Promise<void> => {
  for (let n = 0; n < count; n++) {
    accessLine(logger, n)
    if ((n + 1) % perTurn === 0) await nextTurn()
  }
  await nextTurn()
}

const loggers = Object.entries(destinations).map(([name, destination]) => ({
  name,
  logger: createServerLogger({ level: 'info', authenticators: [], destination: destination() }),
  perLine: [] as number[],
}))
for (const { logger } of loggers) await logTurns(logger, 20_000)
for (let round = 1; round <= rounds; round++) {
  for (const entry of loggers) {
    const before = process.cpuUsage()
    await logTurns(entry.logger, lines)
    const used = process.cpuUsage(before)
    entry.perLine.push((used.user + used.system) / lines)
    console.log(`round ${round}  ${entry.name}: ${entry.perLine.at(-1)!.toFixed(2)} µs CPU a line`)
  }
}
for (const { name, perLine } of loggers)
  console.log(`median  ${name}: ${median(perLine).toFixed(2)} µs CPU a line`)
