import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { captureOutput } from './process.ts'

/** A module of ours, as an import specifier for a probe's script. */
export const srcModule = (path: string): string =>
  JSON.stringify(new URL(`../../src/${path}`, import.meta.url).pathname)

/**
 * Runs `setup`, a full collection (what `setup` made is old then), and `body` (an ES module's
 * statements, `gc` available) in a child, then two young collections, and answers by how many
 * bytes the old generation grew during `body`: what outlived the young collections. `body` should
 * call `gc({ type: 'minor' })` as it goes and never `gc()`. Allocation-site pretenuring is off, or
 * V8 could put objects in the old generation from the start, which is not what is measured.
 */
export const oldGrowth = async ({
  imports,
  setup = '',
  body,
}: {
  imports: string
  setup?: string
  body: string
}): Promise<number> => {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8'
    ${imports}
    const oldUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size
    ${setup}
    gc()
    gc()
    const before = oldUsed()
    ${body}
    gc({ type: 'minor' })
    gc({ type: 'minor' })
    process.stdout.write(String(oldUsed() - before))
  `
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--no-allocation-site-pretenuring',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const output = captureOutput(child)
  const code = await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(code, 0)
  return Number(output())
}
