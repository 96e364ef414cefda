import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Everything a child writes to stdout and stderr, interleaved as it arrives. */
export const captureOutput = (child: ChildProcess): (() => string) => {
  let output = ''
  const append = (chunk: Buffer | string): void => {
    output += chunk
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  return () => output
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  output: () => string
  /** SIGKILL, and wait until the process is gone. */
  kill(): Promise<void>
  /** SIGTERM (graceful), and wait for the exit code. */
  stop(): Promise<number | null>
}

/**
 * Starts `switchboard serve` as a real process and resolves once it prints its URL. `bin` runs it
 * as `npx switchboard` does, through bin/switchboard.js.
 */
export const spawnServer = async (
  args: string[],
  env: Record<string, string> = {},
  options: { bin?: boolean } = {},
): Promise<ServerProcess> => {
  const entry = options.bin ? ['bin/switchboard.js'] : ['--import', 'tsx', 'src/cli/main.ts']
  const child = spawn(process.execPath, [...entry, 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => {
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    // A safety net for a hang, not a performance bound: on a loaded machine (load average 20 on two
    // cores) a cold start that compiles the sources through tsx took over 20 s.
    const timer = setTimeout(() => {
      // Not left running: a live child keeps the test file's process, and the whole suite, waiting.
      child.kill('SIGKILL')
      reject(new Error(`server did not start:\n${output}`))
    }, 120_000)
    const check = () => {
      const match = /Switchboard listening on (\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', check)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`server exited:\n${output}`))
    })
  })
  return {
    url,
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}
