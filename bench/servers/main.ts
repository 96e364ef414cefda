/**
 * One benchmark server process: `node --import tsx bench/servers/main.ts '<ServerOptions JSON>'`.
 * Prints the ready line once it listens; closes on SIGTERM (a clean exit, so `--cpu-prof` writes).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { getHeapSpaceStatistics } from 'node:v8'
import { isFloor, type MemoryReading, READY_PREFIX, type ReadyLine, type ServerOptions } from '../protocol.ts'

const options = JSON.parse(process.argv[2] ?? '{}') as ServerOptions
const start = options.target.startsWith('switchboard')
  ? (await import('./switchboard.ts')).startSwitchboard
  : isFloor(options.target)
    ? (await import('./floor.ts')).startFloor
    : (await import('./sdk.ts')).startSdk
const server = await start(options)

// The subscriber scenario collects garbage before each memory reading (the server runs with --expose-gc),
// and reads what the young generation keeps resident from the file written after it.
const memoryFile = join(options.dataDir, 'memory.json')
let collections = 0
process.on('SIGUSR2', () => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const young = getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('new_'))
  const reading: MemoryReading = {
    collections: ++collections,
    youngResidentBytes: young.reduce((sum, s) => sum + s.physical_space_size, 0),
  }
  writeFileSync(memoryFile, JSON.stringify(reading))
})

let closing = false
const shutdown = (): void => {
  if (closing) return
  closing = true
  // A server that will not close in time is not what we measure: leave anyway.
  const timer = setTimeout(() => process.exit(0), 3000)
  timer.unref()
  server.close().then(
    () => process.exit(0),
    () => process.exit(0),
  )
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
// The SDK logs every failed webhook or stream error on the console; the bench verifies outcomes instead.
process.on('unhandledRejection', (error) => {
  process.stderr.write(`unhandled rejection: ${String(error)}\n`)
})

const ready: ReadyLine = { base: server.base, pid: process.pid, memoryFile }
process.stdout.write(`${READY_PREFIX}${JSON.stringify(ready)}\n`)
