/**
 * The README's "Writing an agent" example, exactly as written, on a clone with no build: saved as
 * ./greeter.ts in the project and served by the real binary. The code comes out of README.md, so
 * the README stays the source.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { connect } from '../../src/client.ts'
import { type ServerProcess, spawnServer } from '../helpers/process.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The first TypeScript block after the "Writing an agent" heading. */
const readmeExample = (): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Writing an agent'))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  assert.ok(block, 'README.md has a ts block under "Writing an agent"')
  return block[1]!
}

// Inside the project (tmp/ is git-ignored), where a reader of a fresh clone would save it.
mkdirSync(join(ROOT, 'tmp'), { recursive: true })
const dir = mkdtempSync(join(ROOT, 'tmp', 'readme-'))
let server: ServerProcess
before(async () => {
  writeFileSync(join(dir, 'greeter.ts'), readmeExample())
  server = await spawnServer(
    [`./${relative(ROOT, join(dir, 'greeter.ts'))}`, '--data', join(dir, 'data')],
    {},
    { bin: true },
  )
})
after(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("the README's greeter, served by `switchboard serve ./greeter.ts`", () => {
  it('greets by name, and fails with NO_NAME for nobody', async () => {
    const greeter = await connect(`${server.url}/agents/greeter`)
    const greeted = await (await greeter.send({ name: 'Ada' })).wait()
    assert.equal(greeted.state, 'COMPLETED', JSON.stringify(greeted.error))
    assert.deepEqual(greeted.output, { greeting: 'Hello, Ada!' })
    const nobody = await (await greeter.send({ name: 'nobody' })).wait()
    assert.equal(nobody.state, 'FAILED')
    assert.deepEqual(nobody.error, { code: 'NO_NAME', message: 'cannot greet nobody' })
  })
})
