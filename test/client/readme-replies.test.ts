/**
 * The README's "Answering with a message" example, as written (only its import points at the
 * sources), served in-process and driven by the client over each interface, as docs/client.md
 * shows: a direct reply, a final message beside an output, a failure with a reply.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { AgentDefinition } from '../../src/agent/define.ts'
import { connect } from '../../src/client.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The first TypeScript block after the "Answering with a message" paragraph. */
const readmeExample = (): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('**Answering with a message.**'))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  assert.ok(block, 'README.md has a ts block after "Answering with a message"')
  return block[1]!.replace("from 'switchboard'", `from '${pathToFileURL(join(ROOT, 'src/index.ts')).href}'`)
}

mkdirSync(join(ROOT, 'tmp'), { recursive: true })
const dir = mkdtempSync(join(ROOT, 'tmp', 'readme-replies-'))
let server: TestServer
before(async () => {
  const file = join(dir, 'helpdesk.ts')
  writeFileSync(file, readmeExample())
  const { helpdesk } = (await import(pathToFileURL(file).href)) as { helpdesk: AgentDefinition }
  server = await startServer({ agents: [helpdesk] })
})
after(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

const desk = (kind: 'jsonrpc' | 'rest' | 'clawpedia') =>
  connect(`${server.url}/agents/helpdesk`, { prefer: [kind], timeoutMs: 5000 })

describe("the README's helpdesk", () => {
  it('answers a question about opening hours directly (A2A: a Message)', async () => {
    for (const kind of ['jsonrpc', 'rest'] as const) {
      const answer = await (await desk(kind)).send({ text: 'What are your opening hours?' })
      assert.equal(answer.task.reply?.text ?? answer.task.state, 'We are open 9:00-17:00, Monday to Friday.')
    }
  })

  it('files a problem: the final message beside the output', async () => {
    const done = await (await (await desk('rest')).send({ text: 'the printer jams' })).wait()
    assert.equal(done.state, 'COMPLETED')
    assert.equal(done.message?.text, 'Filed "the printer jams" as ticket 42.')
    assert.deepEqual(done.output, { ticket: 42 })
  })

  it('over Clawpedia: asks, takes a text answer, or fails with its reply when there is nothing to file', async () => {
    const agent = await desk('clawpedia')
    const asked = await agent.send({})
    assert.equal((await asked.wait()).prompt, 'What is the problem?')
    await asked.provideInput({ text: 'paper jam' })
    assert.equal((await asked.wait()).message?.text, 'Filed "paper jam" as ticket 42.')

    const nothing = await agent.send({})
    await nothing.wait()
    await nothing.provideInput({})
    const failed = await nothing.wait()
    assert.equal(failed.state, 'FAILED')
    assert.equal(failed.error?.code, 'NO_PROBLEM')
    assert.equal(failed.message?.text, 'Glad it works!')
  })
})
