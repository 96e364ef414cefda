import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real binary (`node bin/switchboard.js …`) to its end. */
export const cli = (
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/switchboard.js', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        SWITCHBOARD_ADMIN_TOKEN: '',
        SWITCHBOARD_SERVER: '',
        SWITCHBOARD_TOKEN: '',
        SWITCHBOARD_CREDENTIALS: '',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    // A safety net for a hang, not a performance bound: under load a cold start takes over 15 s.
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`switchboard ${args.join(' ')} did not finish:\n${stdout}\n${stderr}`))
    }, options.timeoutMs ?? 120_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** stdout as JSON (one document). */
export const json = <T = unknown>(result: CliResult): T => {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`)
  }
}

/** stdout as JSON lines. */
export const lines = <T = unknown>(result: CliResult): T[] =>
  result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
