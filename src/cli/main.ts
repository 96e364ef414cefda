import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { deliveriesCommand } from './deliveries.ts'
import { EXIT, EXIT_CODES_HELP, exitCodeOfError, exitCodeOfStartup, UsageError } from './exit-codes.ts'
import { keysCommand } from './keys.ts'
import { serveCommand } from './serve.ts'
import { taskCommands } from './task-commands.ts'

const EXAMPLES = `
Examples:
  switchboard serve                                              # host the demo agents on :8080
  switchboard card http://127.0.0.1:8080/agents/report-builder
  switchboard send http://127.0.0.1:8080/agents/long-runner --input '{"steps":3}' --follow
  switchboard send http://127.0.0.1:8080 --input @input.json --wait --json
  switchboard send http://127.0.0.1:8080/agents/report-builder --text "Q3 revenue" --wait
  switchboard input http://127.0.0.1:8080/agents/report-builder <task> '{"sections":["Intro"]}' --wait
  switchboard artifacts http://127.0.0.1:8080/agents/csv-analyst <task> --download ./out
  switchboard deliveries list --state dead --token "$SWITCHBOARD_ADMIN_TOKEN"
  switchboard keys create --principal alice --label laptop          # then: serve --api-keys`

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

const program = new Command()
  .name('switchboard')
  .version(version, '-V, --version', 'print the version of switchboard')
  .description(
    'Switchboard: host agents over the Clawpedia task protocol and A2A 1.0, and orchestrate remote agents',
  )
  .showHelpAfterError()
  // Commander would exit by itself (status 1) on a usage error; ours is 2, and help is 0.
  .exitOverride()
  .addHelpText('after', `${EXIT_CODES_HELP}\n${EXAMPLES}`)

/** Runs a client command: its result is the exit status, its error says which one. */
const run = async (action: () => Promise<number>): Promise<void> => {
  try {
    process.exitCode = await action()
  } catch (error) {
    process.exitCode = exitCodeOfError(error)
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`switchboard: ${message}\n`)
    if (error instanceof UsageError) process.stderr.write("(run 'switchboard help' for usage)\n")
  }
}

serveCommand(program)
taskCommands(program, run)
deliveriesCommand(program, run)
keysCommand(program, run)
for (const command of program.commands) {
  command.exitOverride().addHelpText('after', EXIT_CODES_HELP)
  for (const sub of command.commands) sub.exitOverride().addHelpText('after', EXIT_CODES_HELP)
}

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and --version end here too, with their own status 0.
    process.exitCode = error.exitCode === 0 ? EXIT.OK : EXIT.USAGE
  } else {
    // What `serve` throws: a start-up failure has its own status, anything else is bad configuration.
    process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = exitCodeOfStartup(error)
  }
}
