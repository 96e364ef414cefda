/**
 * The README's streamed-artifact example ("Streamed artifacts."), exactly as written, served by the
 * real binary like the greeter: a client following it sees every piece, and the whole story.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { connect, type TaskUpdate } from '../../src/client.ts'
import { type ServerProcess, spawnServer } from '../helpers/process.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The first TypeScript block after the "Streamed artifacts." paragraph. */
const readmeExample = (): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('**Streamed artifacts.**'))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  assert.ok(block, 'README.md has a ts block after "Streamed artifacts."')
  return block[1]!
}

mkdirSync(join(ROOT, 'tmp'), { recursive: true })
const dir = mkdtempSync(join(ROOT, 'tmp', 'readme-stream-'))
let server: ServerProcess
before(async () => {
  writeFileSync(join(dir, 'storyteller.ts'), readmeExample())
  server = await spawnServer(
    [`./${relative(ROOT, join(dir, 'storyteller.ts'))}`, '--data', join(dir, 'data')],
    {},
    { bin: true },
  )
})
after(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("the README's storyteller, served by `switchboard serve ./storyteller.ts`", () => {
  for (const kind of ['jsonrpc', 'clawpedia'] as const) {
    it(`streams its story word by word (${kind})`, async () => {
      const agent = await connect(`${server.url}/agents/storyteller`, { prefer: [kind] })
      const task = await agent.send({ words: ['Tide', 'pools', 'teem.'] })
      const pieces: string[] = []
      let last: TaskUpdate | undefined
      for await (const update of task.events()) {
        if (update.type === 'artifact' && update.chunk) pieces.push(update.chunk.text)
        last = update
      }
      assert.equal(last?.type === 'status' && last.task.state, 'COMPLETED')
      assert.deepEqual(pieces, ['Tide ', 'pools ', 'teem. ', ''])
      const [story] = await task.artifacts()
      assert.equal(story?.type === 'text' && story.text, 'Tide pools teem. ')
    })
  }
})
