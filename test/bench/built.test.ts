import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { A2aClient } from '../../bench/client/a2a.ts'
import { Http } from '../../bench/client/http.ts'
import { checkCompletedTask } from '../../bench/client/verify.ts'
import { buildSwitchboard } from '../../bench/harness/build.ts'
import { summarise } from '../../bench/profile.ts'

/**
 * The bench runs Switchboard built (bench/harness/build.ts), as an application imports the
 * package: the build must serve the bench's scenarios, and the profiles must still say which of
 * our folders the time is in.
 */
describe('the bench runs Switchboard built', () => {
  it('serves a send from dist/, built from this tree', async () => {
    buildSwitchboard()
    const { startSwitchboard } = await import('../../bench/servers/switchboard.ts')
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-built-'))
    const server = await startSwitchboard({ target: 'switchboard-sqlite', dataDir: dir })
    const http = new Http(server.base, 1)
    try {
      const task = await new A2aClient(http, 'jsonrpc').send({ artifacts: 2 })
      checkCompletedTask(task, { artifacts: 2, outputArtifact: false })
    } finally {
      await http.close()
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("files a built module's time under its source folder, and counts it as ours", () => {
    const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
      id,
      callFrame: { functionName, url, lineNumber: 10 },
      children,
    })
    const summary = summarise({
      nodes: [
        frame(1, '(root)', '', [2]),
        frame(2, 'submit', 'file:///work/switchboard/dist/engine/engine.js', [3]),
        frame(3, 'canonicalize', 'file:///work/switchboard/node_modules/canonicalize/lib/canonicalize.js'),
      ],
      startTime: 0,
      endTime: 4000,
      samples: [2, 3, 3, 3],
      timeDeltas: [0, 1000, 1000, 1000, 1000],
    })
    const areas = Object.fromEntries(summary.areas.map((row) => [row.name, row.ms]))
    assert.deepEqual(areas, { canonicalize: 3, 'src/engine': 1 })
    assert.deepEqual(
      summary.ownInclusiveTop.map((row) => [row.name, row.where, row.ms]),
      [['submit', 'dist/engine/engine.js:11', 4]],
    )
  })
})
