/**
 * `npx tsx bench/stream-writes.ts [--seconds 8] [--rounds 5] [--warmup 2]`: what a stream's second
 * socket write costs the server. A server process (this script with `--serve`) answers each POST
 * with an SSE stream written by SseStream (src/web/sse.ts) the way an A2A stream of the bench's
 * task comes: its head and the Task frame at once, then twelve frames and the end of the body two
 * turns of the event loop later (the run's first commit). `held` opens it with the A2A streams'
 * hold (OPENING_HOLD_TURNS in dialects/a2a/stream.ts), so that all of it is one write; `unheld`
 * without, two writes. A load of 16 connections for `--seconds` a round, after `--warmup` seconds
 * of each server; the two alternated for `--rounds` rounds; it prints the server's CPU per stream
 * (read from the server itself before and after each round) and the medians.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { OPENING_HOLD_TURNS } from '../src/dialects/a2a/stream.ts'
import { jsonText } from '../src/model/json.ts'
import { Heartbeats, SseStream } from '../src/web/sse.ts'
import { median } from './harness/aggregate.ts'

const CONNECTIONS = 16
const FRAMES_AFTER_THE_FIRST = 12

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    serve: { type: 'string' },
  },
})

/** A frame the size of a JSON-RPC artifactUpdate of the bench's stream. */
const frame = (n: number) =>
  jsonText({
    jsonrpc: '2.0',
    id: 1,
    result: {
      artifactUpdate: {
        taskId: '01a24cc3-5961-7000-8ea1-9c1138b3bd96',
        contextId: '01a24cc3-5961-7000-8ea1-9c1138b3bd97',
        artifact: {
          artifactId: `01a24cc3-5961-7001-999c-6a77ae8a${String(n).padStart(4, '0')}`,
          name: `a${n}`,
          parts: [{ text: `chunk ${n}` }],
        },
      },
    },
  })

const serve = (holdTurns: number): void => {
  const heartbeats = new Heartbeats(60_000)
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      const used = process.cpuUsage()
      res.end(String(used.user + used.system))
      return
    }
    req.resume()
    req.on('end', () => {
      const stream = new SseStream(res, heartbeats, () => ': ping\n\n')
      stream.open({ holdTurns })
      stream.send({ id: 1, data: frame(0) })
      setImmediate(() =>
        setImmediate(() => {
          for (let n = 1; n <= FRAMES_AFTER_THE_FIRST; n++) stream.send({ id: n + 1, data: frame(n) })
          stream.end()
        }),
      )
    })
  })
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as { port: number }).port}\n`)
  })
}

if (args.serve !== undefined) {
  serve(args.serve === 'held' ? OPENING_HOLD_TURNS : 0)
} else {
  const seconds = Number(args.seconds)
  const rounds = Number(args.rounds)
  const warmup = Number(args.warmup)
  if (!(seconds > 0) || !(rounds > 0) || !(warmup >= 0))
    throw new Error('--seconds and --rounds take positive numbers, --warmup a number of seconds')

  const start = async (kind: string): Promise<{ child: ChildProcess; pool: Pool }> => {
    const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--serve', kind], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
    const pool = new Pool(`http://127.0.0.1:${Number(line)}`, { connections: CONNECTIONS })
    return { child, pool }
  }
  const cpuOf = async (pool: Pool): Promise<number> =>
    Number(await (await pool.request({ method: 'GET', path: '/' })).body.text())
  /** Streams read to their end by 16 connections for `ms`; how many. */
  const load = async (pool: Pool, ms: number): Promise<number> => {
    const until = performance.now() + ms
    let streams = 0
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const answer = await pool.request({ method: 'POST', path: '/', body: '{}' })
          await answer.body.text()
          streams += 1
        }
      }),
    )
    return streams
  }

  const servers = [
    { name: 'held (one write)', ...(await start('held')), perStream: [] as number[] },
    { name: 'unheld (two writes)', ...(await start('unheld')), perStream: [] as number[] },
  ]
  try {
    for (const server of servers) await load(server.pool, warmup * 1000)
    for (let round = 1; round <= rounds; round++) {
      for (const server of servers) {
        const before = await cpuOf(server.pool)
        const streams = await load(server.pool, seconds * 1000)
        const used = (await cpuOf(server.pool)) - before
        server.perStream.push(used / streams)
        console.log(
          `round ${round}  ${server.name}: ${server.perStream.at(-1)!.toFixed(1)} µs server CPU a stream`,
        )
      }
    }
    for (const { name, perStream } of servers)
      console.log(`median  ${name}: ${median(perStream).toFixed(1)} µs server CPU a stream`)
  } finally {
    for (const { child, pool } of servers) {
      await pool.close()
      child.kill()
    }
  }
}
