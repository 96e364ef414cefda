import type { Command } from 'commander'
import { firstSet, nameOf, onOff, type ServeFlagGroup } from './group.ts'

/** The operator console at /console (docs/console.md): on unless turned off. */
export const consoleFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--console <on|off>',
      'off: do not serve the operator console at /console (env SWITCHBOARD_CONSOLE; default on)',
    )
  },
  resolve({ flags, env, file }) {
    const value = firstSet(flags.console, env.SWITCHBOARD_CONSOLE, file.console)
    if (value === undefined) return {}
    const name = nameOf(flags.console, '--console', env.SWITCHBOARD_CONSOLE, 'SWITCHBOARD_CONSOLE', 'console')
    return { console: onOff(name, value) }
  },
}
