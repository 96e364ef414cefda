import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

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
    // A server that did not start in time is killed: left running, it would keep the test file alive.
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start:\n${output}`))
    }, 20_000)
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
