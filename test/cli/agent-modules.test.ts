/**
 * `switchboard serve <file>` loads an agent module as ESM wherever it lives: here in a temporary
 * folder outside the project, with no package.json to say `"type": "module"`. A syntax error is
 * reported with its file and line, and the server does not start.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { connect } from '../../src/client.ts'
import { spawnServer } from '../helpers/process.ts'
import { cli } from './helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'switchboard-agents-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const AGENT = `import { defineAgent } from '${pathToFileURL(join(import.meta.dirname, '../../src/index.ts')).href}'

export const outsider = defineAgent({
  id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  name: 'Outsider',
  description: 'An agent that lives outside the project.',
  inputSchema: { type: 'object' },
  handler: () => ({ from: 'outside' }),
})
`

describe('agent modules outside the project', () => {
  it('load as ESM from a folder without package.json', async () => {
    writeFileSync(join(dir, 'outsider.ts'), AGENT)
    const server = await spawnServer(
      [join(dir, 'outsider.ts'), '--data', join(dir, 'data')],
      {},
      { bin: true },
    )
    try {
      const agent = await connect(`${server.url}/agents/outsider`)
      const task = await (await agent.send({})).wait()
      assert.deepEqual(task.output, { from: 'outside' })
    } finally {
      await server.stop()
    }
  })

  it('a syntax error exits non-zero naming the file and line', async () => {
    const file = join(dir, 'broken.ts')
    writeFileSync(file, 'export const broken = {\n  name: "x",\n  handler: ;\n}\n')
    const result = await cli(['serve', file, '--port', '0', '--data', join(dir, 'data-broken')])
    assert.notEqual(result.code, 0)
    assert.ok(result.stderr.includes(`${file}:3:`), result.stderr)
    assert.doesNotMatch(result.stdout, /listening/)
  })
})
