import type { Command } from 'commander'
import { firstSet, nameOf, onOff, type ServeFlagGroup, sectionOf } from './group.ts'

/** Which A2A versions the interfaces speak (docs/a2a.md "A2A 0.3"): 1.0 always, 0.3 unless turned off. */
export const a2aVersionFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--a2a-v03 <on|off>',
      'off: serve A2A 1.0 only, refusing requests without A2A-Version as 0.3 (env SWITCHBOARD_A2A_V03; default on)',
    )
  },
  resolve({ flags, env, file }) {
    const value = firstSet(flags.a2aV03, env.SWITCHBOARD_A2A_V03, sectionOf(file, 'a2a').v03)
    if (value === undefined) return {}
    const name = nameOf(flags.a2aV03, '--a2a-v03', env.SWITCHBOARD_A2A_V03, 'SWITCHBOARD_A2A_V03', 'a2a.v03')
    return { a2a: { v03: onOff(name, value) } }
  },
}
