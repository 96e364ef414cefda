import type { Ora } from 'ora'
import type { RemoteArtifact, RemoteTask, TaskUpdate } from '../client/types.ts'

/**
 * Where command output goes. Results go to stdout (JSON with --json, text otherwise); progress
 * goes to stderr, as a spinner when stderr is a terminal and not at all otherwise, so piped
 * output stays parseable.
 */
export class Output {
  readonly json: boolean
  #spinner: Ora | undefined
  /** ora is loaded only when a spinner can be shown (a terminal): it costs start-up time. */
  readonly #ora: Promise<typeof import('ora').default> | undefined
  #stopped = false

  constructor(json: boolean) {
    this.json = json
    // A terminal that reports no width cannot host a spinner (it could not tell how much to clear).
    if (!json && process.stderr.isTTY && process.stderr.columns > 0) {
      this.#ora = import('ora').then((module) => module.default)
    }
  }

  /** One result: `data` as JSON, or the human text. */
  result(data: unknown, human: string): void {
    this.#write(this.json ? JSON.stringify(data) : human)
  }

  /** One line that is part of a live listing (an update while following). */
  line(data: unknown, human: string): void {
    this.result(data, human)
  }

  error(message: string): void {
    this.#spinner?.stop()
    process.stderr.write(`switchboard: ${message}\n`)
  }

  /** Progress while waiting: a spinner on a terminal, nothing otherwise. */
  progress(text: string): void {
    if (!this.#ora) return
    this.#stopped = false
    if (this.#spinner) {
      this.#spinner.text = text
      return
    }
    void this.#ora.then((ora) => {
      if (this.#stopped) return
      if (this.#spinner) this.#spinner.text = text
      else this.#spinner = ora({ text, stream: process.stderr }).start()
    })
  }

  done(): void {
    this.#stopped = true
    this.#spinner?.stop()
    this.#spinner = undefined
  }

  #write(text: string): void {
    // Lines go above the spinner, which redraws below them.
    this.#spinner?.clear()
    process.stdout.write(`${text}\n`)
    this.#spinner?.render()
  }
}

const time = (iso: string | undefined): string => (iso ? iso.slice(11, 19) : '--:--:--')

const json = (value: unknown): string => JSON.stringify(value)

export const describeArtifact = (artifact: RemoteArtifact): string => {
  const label = ('filename' in artifact && artifact.filename) || artifact.name || artifact.id
  const media = 'mediaType' in artifact && artifact.mediaType ? ` ${artifact.mediaType}` : ''
  return `${artifact.type} ${label}${media}  (${artifact.id})`
}

/**
 * The text of the task's status message when the prompt or the error does not already say it
 * (their text is the message's on A2A): a progress note, the agent's final message.
 */
const messageText = (task: RemoteTask): string | undefined => {
  const text = task.message?.text
  return text === undefined || text === task.prompt || text === task.error?.message ? undefined : text
}

/** A task, for people: its state and whatever that state carries. */
export const describeTask = (task: RemoteTask): string => {
  const lines = [`task ${task.id}  ${task.state}`]
  if (task.contextId) lines.push(`  context: ${task.contextId}`)
  if (task.updatedAt) lines.push(`  updated: ${task.updatedAt}`)
  if (task.prompt) lines.push(`  prompt:  ${task.prompt}`)
  if (task.inputSchema) lines.push(`  answer schema: ${json(task.inputSchema)}`)
  if (task.error) lines.push(`  error:   ${task.error.code}: ${task.error.message}`)
  const message = messageText(task)
  // A direct reply is the answer itself: its output is only the reply again.
  if (task.reply) lines.push(`  reply:   ${message ?? json(task.output)}`)
  else if (message !== undefined) lines.push(`  message: ${message}`)
  if (task.output && !task.reply) lines.push(`  output:  ${json(task.output)}`)
  for (const artifact of task.artifacts ?? []) lines.push(`  artifact ${describeArtifact(artifact)}`)
  return lines.join('\n')
}

/** One update while following, as one line. */
export const describeUpdate = (update: TaskUpdate): string => {
  switch (update.type) {
    case 'status': {
      const { task } = update
      const message = messageText(task)
      const extra = task.prompt
        ? `: ${task.prompt}`
        : task.error
          ? `: ${task.error.code}: ${task.error.message}${message === undefined ? '' : ` — ${message}`}`
          : message === undefined
            ? ''
            : `: ${message}`
      return `${time(task.updatedAt)} ${task.state}${extra}`
    }
    case 'log':
      return `${time(update.at)} ${update.level.padEnd(5)} ${update.message}`
    case 'artifact':
      return `${time(update.artifact.createdAt ?? new Date().toISOString())} artifact ${describeArtifact(update.artifact)}`
  }
}

/** Rows as aligned columns. */
export const table = (rows: string[][]): string => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? []
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n')
}
