import { mkdirSync } from 'node:fs'
import type { Command } from 'commander'
import type { Agent } from '../client/agent.ts'
import type { TaskHandle } from '../client/task-handle.ts'
import type { RemoteTask } from '../client/types.ts'
import { isTerminal } from '../model/states.ts'
import {
  type AgentFlags,
  connectOptionsOf,
  jsonObjectArg,
  positiveInt,
  stateArg,
  urlArg,
  withAgentOptions,
} from './args.ts'
import { EXIT, exitCodeOfState, UsageError } from './exit-codes.ts'
import { describeArtifact, describeTask, describeUpdate, Output, table } from './output.ts'

/** The client is loaded when a command runs, not for --help or a usage error: start-up time counts. */
const open = async (url: string, flags: AgentFlags): Promise<Agent> => {
  const target = urlArg(url, 'the agent URL')
  const options = connectOptionsOf(target, flags)
  const { connect } = await import('../client/connect.ts')
  return connect(target, options)
}

/** What the caller has to do for a task that stopped to wait for it. */
const interruption = (task: RemoteTask): string =>
  task.state === 'AUTH_REQUIRED'
    ? `task ${task.id} needs authorization: ${task.prompt ?? ''}\n  complete the step the agent describes (never send a credential in a message), then: switchboard watch <url> ${task.id}`
    : `task ${task.id} waits for input: ${task.prompt ?? ''}\n  answer with: switchboard input <url> ${task.id} '<json>' (or --text '<answer>')`

/**
 * Follows a task until it ends or waits for input. `live`: every update is printed as it comes;
 * otherwise only the spinner shows the state. Returns the exit status for where it stopped.
 */
const follow = async (handle: TaskHandle, out: Output, live: boolean): Promise<number> => {
  out.progress(`task ${handle.id}: ${handle.status}`)
  try {
    for await (const update of handle.events({ until: 'settled' })) {
      if (update.type === 'status') out.progress(`task ${handle.id}: ${update.task.state}`)
      // A streamed artifact is one line when it is complete, not one per piece (--json: every one).
      const piece = update.type === 'artifact' && update.chunk !== undefined && !update.chunk.last
      if (live && (out.json || !piece)) out.line(update, describeUpdate(update))
    }
  } finally {
    out.done()
  }
  const task = handle.task
  if (!live) out.result(task, describeTask(task))
  else if (!out.json && !isTerminal(task.state)) out.result(task, interruption(task))
  return exitCodeOfState(task.state)
}

interface SendFlags extends AgentFlags {
  input?: string
  text?: string
  follow?: boolean
  wait?: boolean
  context?: string
}

interface FollowFlags extends AgentFlags {
  follow?: boolean
  wait?: boolean
}

const finish = async (handle: TaskHandle, flags: FollowFlags, out: Output): Promise<number> => {
  if (flags.follow) return follow(handle, out, true)
  if (flags.wait) return follow(handle, out, false)
  out.result(handle.task, describeTask(handle.task))
  return EXIT.OK
}

/** The commands that talk to one agent: card, send, get, list, cancel, input, artifacts, watch. */
export const taskCommands = (
  program: Command,
  run: (action: () => Promise<number>) => Promise<void>,
): void => {
  withAgentOptions(
    program.command('card').description("show an agent's cards and the interfaces the client would use"),
  )
    .argument('<url>', 'the agent base URL, or its card URL')
    .action((url: string, flags: AgentFlags) =>
      run(async () => {
        const out = new Output(flags.json === true)
        const agent = await open(url, flags)
        const { a2a, clawpedia } = agent.discovery
        const data = {
          name: agent.name,
          description: agent.description,
          interface: agent.interface,
          interfaces: agent.interfaces,
          skipped: agent.skipped,
          warnings: agent.discovery.warnings,
          cards: agent.cards,
          sources: { ...(a2a && { a2a: a2a.source }), ...(clawpedia && { clawpedia: clawpedia.source }) },
          ...(a2a?.signedBy !== undefined && { signedBy: a2a.signedBy }),
        }
        const lines = [`${agent.name}: ${agent.description}`]
        if (a2a)
          lines.push(
            `  A2A card:       ${a2a.url} (version ${a2a.card.version}, streaming ${a2a.card.capabilities.streaming === true}${a2a.signedBy === undefined ? '' : `, signature verified: key ${a2a.signedBy}`})`,
          )
        const extensions = a2a?.card.capabilities.extensions ?? []
        if (extensions.length > 0)
          lines.push(
            `  extensions:     ${extensions.map((e) => (e.required ? `${e.uri} (required)` : e.uri)).join(', ')}`,
          )
        if (clawpedia) lines.push(`  Clawpedia card: ${clawpedia.url} (agent_id ${clawpedia.card.agent_id})`)
        const current = agent.interface
        for (const info of agent.interfaces) {
          const isCurrent =
            info.kind === current.kind && info.url === current.url && info.a2aVersion === current.a2aVersion
          const version = info.a2aVersion ? ` (A2A ${info.a2aVersion})` : ''
          lines.push(`  ${isCurrent ? '*' : ' '} ${info.kind.padEnd(9)} ${info.url}${version}`)
        }
        for (const reason of agent.skipped) lines.push(`    skipped: ${reason}`)
        for (const warning of agent.discovery.warnings) lines.push(`    warning: ${warning}`)
        out.result(data, lines.join('\n'))
        return EXIT.OK
      }),
    )

  withAgentOptions(program.command('send').description('create a task'))
    .argument('<url>', 'the agent base URL')
    .option('--input <json>', 'the input object, inline or as @file (@- for stdin)')
    .option('--text <message>', 'a text message instead of an input object')
    .option('--context <id>', 'A2A: continue this conversation (contextId)')
    .option('--follow', 'print the log lines, state changes and artifacts until the task ends or needs input')
    .option('--wait', 'wait (spinner on a terminal) until the task ends or needs input, then print it')
    .action((url: string, flags: SendFlags) =>
      run(async () => {
        if ((flags.input === undefined) === (flags.text === undefined)) {
          throw new UsageError('send needs exactly one of --input <json> or --text <message>')
        }
        const input =
          flags.input !== undefined ? jsonObjectArg(flags.input, '--input') : { text: flags.text! }
        const out = new Output(flags.json === true)
        const agent = await open(url, flags)
        const handle = await agent.send(input, {
          ...(flags.input !== undefined && { as: 'input' as const }),
          ...(flags.context && { contextId: flags.context }),
        })
        return finish(handle, flags, out)
      }),
    )

  withAgentOptions(program.command('get').description('show a task'))
    .argument('<url>', 'the agent base URL')
    .argument('<task>', 'the task id')
    .action((url: string, id: string, flags: AgentFlags) =>
      run(async () => {
        const out = new Output(flags.json === true)
        const handle = await (await open(url, flags)).task(id)
        out.result(handle.task, describeTask(handle.task))
        return EXIT.OK
      }),
    )

  withAgentOptions(
    program.command('list').description("list the agent's tasks, newest first (A2A ListTasks)"),
  )
    .argument('<url>', 'the agent base URL')
    .option('--state <state>', 'only tasks in this state, e.g. WORKING')
    .option('--context <id>', 'only tasks of this context')
    .option('--limit <n>', 'at most this many tasks', '100')
    .action((url: string, flags: AgentFlags & { state?: string; context?: string; limit: string }) =>
      run(async () => {
        const out = new Output(flags.json === true)
        const limit = positiveInt(flags.limit, '--limit')
        const agent = await open(url, flags)
        const tasks = []
        for await (const task of agent.list({
          ...(flags.state && { state: stateArg(flags.state) }),
          ...(flags.context && { contextId: flags.context }),
          pageSize: Math.min(limit, 100),
        })) {
          tasks.push(task)
          if (tasks.length >= limit) break
        }
        const rows = [['TASK', 'STATE', 'UPDATED'], ...tasks.map((t) => [t.id, t.state, t.updatedAt ?? ''])]
        out.result(tasks, tasks.length === 0 ? 'no tasks' : table(rows))
        return EXIT.OK
      }),
    )

  withAgentOptions(program.command('cancel').description('cancel a task'))
    .argument('<url>', 'the agent base URL')
    .argument('<task>', 'the task id')
    .action((url: string, id: string, flags: AgentFlags) =>
      run(async () => {
        const out = new Output(flags.json === true)
        const handle = await (await open(url, flags)).task(id)
        const task = await handle.cancel()
        out.result(task, describeTask(task))
        return EXIT.OK
      }),
    )

  withAgentOptions(program.command('input').description('answer a task that waits for input'))
    .argument('<url>', 'the agent base URL')
    .argument('<task>', 'the task id')
    .argument('[json]', 'the answer object, inline or as @file (@- for stdin)')
    .option('--text <message>', 'answer with a text message instead of an object')
    .option('--follow', 'then print its updates until it ends or needs input again')
    .option('--wait', 'then wait until it ends or needs input again')
    .action((url: string, id: string, answer: string | undefined, flags: FollowFlags & { text?: string }) =>
      run(async () => {
        if ((answer === undefined) === (flags.text === undefined)) {
          throw new UsageError('input needs exactly one of <json> or --text <message>')
        }
        const out = new Output(flags.json === true)
        const handle = await (await open(url, flags)).task(id)
        if (answer !== undefined)
          await handle.provideInput(jsonObjectArg(answer, 'the answer'), { as: 'input' })
        else await handle.provideInput({ text: flags.text! })
        return finish(handle, flags, out)
      }),
    )

  withAgentOptions(program.command('artifacts').description("list a task's artifacts, or download them"))
    .argument('<url>', 'the agent base URL')
    .argument('<task>', 'the task id')
    .option('--download <dir>', 'save every artifact into this directory')
    .option(
      '--allow-private',
      'let downloads reach private and loopback addresses other than the agent itself',
    )
    .option('--max-bytes <n>', 'refuse any artifact larger than this')
    .action(
      (
        url: string,
        id: string,
        flags: AgentFlags & { download?: string; allowPrivate?: boolean; maxBytes?: string },
      ) =>
        run(async () => {
          const out = new Output(flags.json === true)
          const maxBytes =
            flags.maxBytes === undefined ? undefined : positiveInt(flags.maxBytes, '--max-bytes')
          const handle = await (await open(url, flags)).task(id)
          const artifacts = await handle.artifacts()
          if (flags.download === undefined) {
            out.result(
              artifacts,
              artifacts.length === 0 ? 'no artifacts' : artifacts.map(describeArtifact).join('\n'),
            )
            return EXIT.OK
          }
          mkdirSync(flags.download, { recursive: true })
          const saved = []
          for (const artifact of artifacts) {
            const result = await handle.download(artifact, {
              to: flags.download,
              ...(flags.allowPrivate && { allowPrivate: true }),
              ...(maxBytes !== undefined && { maxBytes }),
            })
            saved.push({ ...artifact, path: result.path, bytes: result.bytes })
            if (!out.json) out.line(undefined, `${result.path}  (${result.bytes} bytes, ${artifact.type})`)
          }
          if (out.json) out.result(saved, '')
          return EXIT.OK
        }),
    )

  withAgentOptions(
    program
      .command('watch')
      .description("print a task's updates from its beginning until it ends or needs input"),
  )
    .argument('<url>', 'the agent base URL')
    .argument('<task>', 'the task id')
    .action((url: string, id: string, flags: AgentFlags) =>
      run(async () => follow(await (await open(url, flags)).task(id), new Output(flags.json === true), true)),
    )
}
