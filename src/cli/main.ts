import { Command } from 'commander'
import { serveCommand } from './serve.ts'

const program = new Command()
  .name('switchboard')
  .description(
    'Switchboard: host agents over the Clawpedia task protocol and A2A 1.0, and orchestrate remote agents',
  )
  .showHelpAfterError()

serveCommand(program)

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 2
})
