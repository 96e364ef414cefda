import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import { A2aClient } from '../../bench/client/a2a.ts'
import { Http } from '../../bench/client/http.ts'
import { checkCompletedTask } from '../../bench/client/verify.ts'
import { startServer } from '../../bench/harness/processes.ts'
import { SQLITE_DRIVER } from '../../src/store/sqlite/driver.ts'

/** The native SQLite builds a process has loaded: `better-sqlite3`, `better-sqlite3-13`. */
const sqliteBuildsOf = (pid: number): string[] => {
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8')
  const packages = [...maps.matchAll(/node_modules\/(better-sqlite3(?:-13)?)\/\S*\.node$/gm)].map(
    ([, name]) => name!,
  )
  return [...new Set(packages)].sort()
}

/**
 * The SDK on SQLite, as the bench runs it. Its migrations (the a2a-db CLI) open their connection
 * with the `better-sqlite3` package (12 here): run in the server's process, that connection's
 * collection aborted the server on Node 24 during every load; run in a process of its own, the CLI
 * aborted at exit five times in six. It runs in its own process, on the driver this Node runs.
 */
describe('the SDK on SQLite (bench/servers/sdk.ts)', () => {
  it('migrates in a process of its own: the server loads only the SQLite driver this Node runs', async () => {
    const server = await startServer('sdk-sqlite', {})
    const http = new Http(server.ready.base, 1)
    try {
      const a2a = new A2aClient(http, 'jsonrpc')
      const task = await a2a.send({ artifacts: 1 })
      checkCompletedTask(task, { artifacts: 1, outputArtifact: false })
      assert.deepEqual(sqliteBuildsOf(server.ready.pid), [SQLITE_DRIVER])
    } finally {
      await http.close()
      await server.stop()
    }
  })

  it("resolves the CLI's better-sqlite3 to the driver this Node runs (sdk-cli-driver.mjs)", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        './bench/servers/sdk-cli-driver.mjs',
        '--input-type=module',
        '-e',
        "console.log(import.meta.resolve('better-sqlite3'))",
      ],
      { env: { ...process.env, SWITCHBOARD_SQLITE_DRIVER: SQLITE_DRIVER } },
    )
    assert.match(stdout, new RegExp(`/node_modules/${SQLITE_DRIVER}/lib/index\\.js$`, 'm'))
  })
})
